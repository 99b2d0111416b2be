import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// HEIC files carry a thumbnail (phones write a 320×240 one); a decode toward a small target uses it when its
/// region of interest covers `targetSize × headroom`, and never when it does not.
@Suite(
    "HEIC thumbnails: used when large enough for the target", .enabled(if: CodecAvailability.heif, "install libheif1"),
    .offThePool)
struct HEIFThumbnailTests {
    static let blue = RGBA(red: 20, green: 40, blue: 230)
    /// A 640×480 primary image with a plain blue 160×120 thumbnail, so which one was decoded shows.
    static var file: Data? { fileBytes.map { Data($0) } }
    /// Kept as an array, as `ProgressiveJPEGTests.progressive` is (LeakSanitizer and `Data` in a static).
    private static let fileBytes: [UInt8]? =
        (try? DisplaySizeFixtures.heic(
            DisplaySizeFixtures.detailed(width: 640, height: 480),
            thumbnail: DisplaySizeFixtures.solid(width: 160, height: 120, blue))).map { [UInt8]($0) }

    static func decode(target: Int?, region: ImageRegion? = .centered(aspectRatio: .square(1))) throws -> Image {
        let data = try #require(file)
        return try ImageDecoder.decode(
            data, options: ImageDecodingOptions(targetSize: target.map { .square($0) }, regionOfInterest: region))
    }

    static func isBlue(_ image: Image) -> Bool {
        isClose(image[image.width / 2, image.height / 2], blue, tolerance: 12)
    }

    @Test("the fixture carries one thumbnail, written as phones do")
    func fixtureHasThumbnail() throws {
        let data = try #require(Self.file)
        let library = try HEIFLibrary.system.get()
        let count = try HEIFSession(library: library, format: .heic).withPrimaryImage(data) { handle in
            Int(library.thumbnailCount(handle))
        }
        #expect(count == 1)
    }

    @Test("a 48 px avatar (96 px with headroom) is decoded from the 160×120 thumbnail's centred square")
    func smallTargetUsesThumbnail() throws {
        let image = try Self.decode(target: 48)
        #expect(image.width == 120 && image.height == 120)
        #expect(Self.isBlue(image))
    }

    @Test("a target the thumbnail cannot cover, or no target, decodes the primary image")
    func largeTargetUsesPrimary() throws {
        // 96 px needs 192 px with headroom: more than the thumbnail's 120
        let large = try Self.decode(target: 96)
        #expect(!Self.isBlue(large) && large.height >= 192)
        let full = try Self.decode(target: nil, region: nil)
        #expect(!Self.isBlue(full) && full.width == 640 && full.height == 480)
    }

    @Test("headroom decides too: at 1 a 100 px target takes the 120 px thumbnail")
    func headroomOne() throws {
        let data = try #require(Self.file)
        var options = ImageDecodingOptions(
            targetSize: .square(100), regionOfInterest: .centered(aspectRatio: .square(1)))
        options.downsamplingHeadroom = 1
        #expect(Self.isBlue(try ImageDecoder.decode(data, options: options)))
    }

    @Test("a thumbnail of other proportions than the primary image is never used")
    func mismatchedThumbnailIsIgnored() throws {
        // Given a 4:3 primary image whose thumbnail is square
        let data = try DisplaySizeFixtures.heic(
            DisplaySizeFixtures.detailed(width: 320, height: 240),
            thumbnail: DisplaySizeFixtures.solid(width: 160, height: 160, Self.blue))

        // When decoded toward a small target / Then the primary image was decoded
        let image = try ImageDecoder.decode(data, options: ImageDecodingOptions(targetSize: .square(16)))
        #expect(!Self.isBlue(image))
    }

    @Test("the primary image's pixel limit holds even when the thumbnail would do")
    func limitAppliesToPrimary() throws {
        let data = try #require(Self.file)
        var options = ImageDecodingOptions(targetSize: .square(16))
        options.maxPixelCount = 640 * 480 - 1
        #expect(throws: ImageError.tooManyPixels(width: 640, height: 480, limit: 640 * 480 - 1)) {
            try ImageDecoder.decode(data, options: options)
        }
    }

    @Test("a file cut after its thumbnail's bytes is truncated, not decoded from the thumbnail")
    func truncatedFileWithThumbnail() throws {
        let data = try #require(Self.file)
        for cut in [data.count - 1, data.count - 200] {
            #expect {
                try ImageDecoder.decode(data.prefix(cut), options: ImageDecodingOptions(targetSize: .square(16)))
            } throws: { error in
                guard case .truncated(.heic, _) = error as? ImageError else { return false }
                return true
            }
        }
    }
}
