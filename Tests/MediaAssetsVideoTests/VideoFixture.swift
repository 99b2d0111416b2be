import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport

/// An origin serving one generated video, a manager with a disk cache in a temporary directory,
/// and a `VideoUtil` over it.
struct VideoFixture {
    let directory: TemporaryDirectory
    let origin: SampleOrigin
    let manager: AssetsManager
    let video: VideoUtil
    let source: Data
    let path = "/video.mp4"

    init(
        size: Int, chunkSize: Int, seed: UInt64 = 1, diskSizeLimit: Int = 512 << 20,
        maxCachedResourceSize: Int? = nil, storageType: StorageType = .disk, windowSize: Int = 8 << 20,
        readAhead: Int? = nil
    ) throws {
        directory = try TemporaryDirectory("VideoTests")
        source = testBytes(count: size, seed: seed)
        origin = SampleOrigin()
        origin.register(path, data: source, contentType: "video/mp4")
        try origin.start()
        manager = try AssetsManager.forTesting(directory: directory, diskSizeLimit: diskSizeLimit)
        video = VideoUtil(
            manager: manager,
            configuration: .init(
                chunkSize: chunkSize, storageType: storageType, maxCachedResourceSize: maxCachedResourceSize,
                windowSize: windowSize, readAhead: readAhead
            ))
    }

    var url: URL { origin.url(for: path) }
    var key: CacheKey { manager.cacheKey(for: AssetRequest(url: url)) }

    /// Asks for the video's content info, so its length and validators are cached, then gives the origin
    /// `behavior` for the video: the set-up of a test of what a later read makes of that origin.
    func cacheInfo(thenServeWith behavior: SampleOrigin.Behavior) async throws {
        _ = try await video.contentInfo(for: url)
        origin.setBehavior(path, behavior)
    }

    /// The source bytes `range`, as a `Data` starting at 0.
    func bytes(_ range: Range<Int>) -> Data { Data(source[range]) }

    /// The `Range` headers the origin received, in arrival order.
    func rangeHeaders() -> [String?] { origin.requests(for: path).map { $0.headers["range"] } }

    /// The stored bytes of chunk `index`, read through the manager.
    func storedChunk(_ index: Int) async throws -> Data? {
        try await manager.cachedEntry(forKey: key.chunk(index), storageType: .disk)?.data
    }

    /// Collects a stream into one `Data`.
    func collect(_ stream: VideoByteStream) async throws -> Data {
        var result = Data()
        for try await piece in stream { result.append(piece) }
        return result
    }

    func tearDown() {
        origin.stop()
        directory.remove()
    }
}
