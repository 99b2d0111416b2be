import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// Files written by ImageMagick (see Samples/README.md): real files from an encoder other than our fixtures'.
@Suite("Real sample files of every format decode", .offThePool)
struct SampleFileTests {
    static func sample(_ name: String) throws -> Data {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Samples")
        return try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static let red = RGBA(red: 255, green: 0, blue: 0)
    static let blue = RGBA(red: 0, green: 0, blue: 255)

    @Test(
        "lossy WebP, HEIC and AVIF gradients: red at the top, blue at the bottom",
        .enabled(if: CodecAvailability.webp && CodecAvailability.heif, "install libwebp7 and libheif1"),
        arguments: [
            ("gradient-lossy.webp", ImageFormat.webp), ("gradient.heic", .heic), ("gradient.avif", .avif),
        ])
    func gradients(name: String, format: ImageFormat) throws {
        // Given the sample
        let data = try Self.sample(name)

        // When decoded
        let header = try ImageDecoder.header(of: data)
        let image = try ImageDecoder.decode(data)

        // Then
        #expect(header.format == format && header.width == 64 && header.height == 48)
        #expect(isClose(image[32, 0], Self.red, tolerance: 40), "\(image[32, 0])")
        #expect(isClose(image[32, 47], Self.blue, tolerance: 40), "\(image[32, 47])")
    }

    @Test(
        "lossless WebP with alpha: a green disc on transparency",
        .enabled(if: CodecAvailability.webp, "install libwebp7"))
    func alphaDisc() throws {
        let data = try Self.sample("circle-lossless-alpha.webp")
        let image = try ImageDecoder.decode(data)
        #expect(try ImageDecoder.header(of: data).hasAlpha)
        #expect(image.width == 32 && image.height == 32)
        #expect(isClose(image[16, 16], RGBA(red: 0, green: 128, blue: 0), tolerance: 12), "\(image[16, 16])")
        #expect(image[0, 0].alpha == 0)
    }

    @Test(
        "animated WebP and GIF: red, lime, blue for 200 ms each, looping forever (both files say 0)",
        .enabled(if: CodecAvailability.webpDemux && CodecAvailability.gif, "install libwebpdemux2 and libgif7"),
        arguments: [
            ("rgb-animated.webp", 0), ("rgb-animated.gif", 0),
        ])
    func animations(name: String, loopCount: Int) throws {
        let animation = try ImageCodecRegistry.standard.decodeAnimation(try Self.sample(name))
        #expect(
            animation.frames.map(\.image)
                == [Self.red, RGBA(red: 0, green: 255, blue: 0), Self.blue].map {
                    Image(width: 16, height: 16, fill: $0)
                })
        #expect(animation.frames.map(\.duration) == Array(repeating: .milliseconds(200), count: 3))
        #expect(animation.loopCount == loopCount)
    }

    @Test(
        "an interlaced GIF with a comment decodes to ImageMagick's own PNG of it",
        .enabled(if: CodecAvailability.gif, "install libgif7"))
    func interlacedGIF() throws {
        let gif = try ImageDecoder.decode(try Self.sample("gradient-interlaced.gif"))
        let reference = try ImageDecoder.decode(try Self.sample("gradient-interlaced-reference.png"))
        #expect(gif == reference)
        #expect(gif[0, 0] != gif[0, 23])
    }
}
