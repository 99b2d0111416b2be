import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport

@testable import MediaAssetsImage

/// Images encoded in code, and the styles the ImageUtil tests ask for.
enum ImageUtilFixtures {
    /// A 300×200 opaque gradient photo as JPEG.
    static func gradientJPEG() throws -> Data {
        try ImageEncoder.jpeg(ProcessingFixtures.smooth(width: 300, height: 200), quality: 90)
    }

    /// A 120×80 PNG whose left half is fully transparent.
    static func transparentPNG() throws -> Data {
        var image = ProcessingFixtures.smooth(width: 120, height: 80)
        for y in 0..<80 {
            for x in 0..<60 {
                let offset = (y * 120 + x) * 4
                for channel in 0..<4 { image.pixels[offset + channel] = 0 }
            }
        }
        return try ImageEncoder.png(image)
    }

    static let circle = AvatarStyle.circle(diameter: 96)
    static let rectangle = AvatarStyle.rectangle(size: .square(96))
    static let rounded = AvatarStyle.roundedRectangle(size: .square(96), cornerRadius: 12)
}

/// A temporary directory, a running origin, a manager on the directory and a util over it.
struct ImageUtilHarness {
    let directory: TemporaryDirectory
    let origin: SampleOrigin
    let manager: AssetsManager
    let util: ImageUtil

    init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) throws {
        directory = try TemporaryDirectory("ImageUtilTests")
        origin = SampleOrigin()
        try origin.start()
        manager = try AssetsManager.forTesting(directory: directory)
        util = ImageUtil(manager: manager, configuration: configuration)
    }

    /// Serves `data` at `path` and returns its URL.
    func serve(_ path: String, _ data: Data, contentType: String = "image/jpeg") -> URL {
        origin.register(path, data: data, contentType: contentType)
        return origin.url(for: path)
    }

    /// Closes this manager's disk cache and opens a new manager and util on the same directory.
    func reopened() async throws -> (manager: AssetsManager, util: ImageUtil) {
        // The variants staged in the background reach the disk first, as they would before a process ends.
        await manager.waitForPendingWrites()
        await (try manager.backend(for: .disk) as? DiskCache)?.close()
        let manager = try AssetsManager.forTesting(directory: directory)
        return (manager, ImageUtil(manager: manager, configuration: util.configuration))
    }

    /// Whether any backend of the default `.hybrid(.image)` layout holds `key`.
    func isStored(_ key: CacheKey) async throws -> Bool {
        let onDisk = try await manager.readData(forKey: key, storageType: .disk)
        let inMemory = try await manager.readData(forKey: key, storageType: .lru(.image))
        return onDisk != nil || inMemory != nil
    }

    func tearDown() {
        origin.stop()
        directory.remove()
    }
}

/// Records what a test's callbacks received, from any task.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }

    var all: [Value] { values.withLock { $0 } }
}

/// An `Avatar` whose local images and save hook a test controls.
struct TestAvatar: Avatar {
    var url: URL
    var style: AvatarStyle = ImageUtilFixtures.circle
    var placeholderImage: Image?
    var localOriginalImage: Image?
    var localStyledImage: Image?
    var saves = Recorder<(original: Image, styled: Image)>()

    func save(originalImage: Image, styledImage: Image) {
        saves.append((originalImage, styledImage))
    }
}
