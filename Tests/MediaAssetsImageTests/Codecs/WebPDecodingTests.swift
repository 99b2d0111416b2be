import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(
    "WebP: lossy, lossless, alpha, animated, encoding", .enabled(if: CodecAvailability.webp, "install libwebp7"),
    .offThePool)
struct WebPDecodingTests {
    static let gradient: Image = {
        var pixels: [UInt8] = []
        for y in 0..<24 {
            for x in 0..<32 { pixels += [UInt8(x * 8), UInt8(y * 10), 128, 255] }
        }
        return Image(width: 32, height: 24, pixels: pixels)
    }()

    /// Left half opaque red, right half half-transparent blue (premultiplied).
    static let translucent: Image = {
        var pixels: [UInt8] = []
        for _ in 0..<8 {
            for x in 0..<8 {
                pixels += x < 4 ? [255, 0, 0, 255] : RGBA(red: 0, green: 0, blue: 255, alpha: 128).premultipliedBytes
            }
        }
        return Image(width: 8, height: 8, pixels: pixels)
    }()

    @Test("lossless WebP decodes to exactly the encoded pixels, alpha included")
    func losslessRoundTrip() throws {
        // Given lossless files of an opaque and a translucent image
        for image in [Self.gradient, Self.translucent] {
            let data = try WebPFixtures.lossless(image)

            // When decoded
            let decoded = try ImageDecoder.decode(data)

            // Then the pixels are the same, and the header says so
            #expect(decoded == image)
            let header = try ImageDecoder.header(of: data)
            #expect(header.format == .webp && header.width == image.width && header.height == image.height)
        }
    }

    @Test("lossy WebP decodes close to the source and keeps its alpha exact")
    func lossyWithAlpha() throws {
        // Given a lossy file with alpha
        let data = try WebPFixtures.lossy(Self.translucent, quality: 95)

        // When decoded
        let decoded = try ImageDecoder.decode(data)

        // Then colours are close and alpha is exact (libwebp compresses alpha losslessly)
        #expect(try ImageDecoder.header(of: data).hasAlpha)
        #expect(isClose(decoded[1, 1], RGBA(red: 255, green: 0, blue: 0), tolerance: 24))
        #expect(decoded[6, 6].alpha == 128)
        #expect(
            isClose(
                decoded[6, 6], Image(width: 1, height: 1, fill: RGBA(red: 0, green: 0, blue: 255, alpha: 128))[0, 0],
                tolerance: 24))
    }

    @Test(
        "an animated WebP gives every frame, its duration and the loop count",
        .enabled(if: CodecAvailability.webpDemux, "install libwebpdemux2"))
    func animated() throws {
        // Given three frames on a 4×4 canvas: red, a green 2×2 at (2, 2) blended over it, then blue
        let red = Image(width: 4, height: 4, fill: RGBA(red: 255, green: 0, blue: 0))
        let green = Image(width: 2, height: 2, fill: RGBA(red: 0, green: 255, blue: 0))
        let blue = Image(width: 4, height: 4, fill: RGBA(red: 0, green: 0, blue: 255))
        let data = try WebPFixtures.animated(
            canvas: .square(4),
            frames: [
                .init(image: red, milliseconds: 70), .init(image: green, x: 2, y: 2, milliseconds: 120),
                .init(image: blue, milliseconds: 40),
            ],
            loopCount: 3
        )

        // When decoded as an animation, and as a still
        let animation = try ImageCodecRegistry.standard.decodeAnimation(data)
        let still = try ImageDecoder.decode(data)

        // Then frames are composited canvases with their durations
        #expect(animation.frames.count == 3)
        #expect(animation.loopCount == 3)
        #expect(animation.frames.map(\.duration) == [.milliseconds(70), .milliseconds(120), .milliseconds(40)])
        #expect(animation.frames[0].image == red)
        #expect(animation.frames[1].image[0, 0] == RGBA(red: 255, green: 0, blue: 0))
        #expect(animation.frames[1].image[3, 3] == RGBA(red: 0, green: 255, blue: 0))
        #expect(animation.frames[2].image == blue)
        #expect(animation.cost == 3 * 4 * 4 * 4)
        #expect(still == red)
        #expect(try ImageDecoder.header(of: data).width == 4)
    }

    @Test("lossy WebP encoding is smaller than PNG for a photo-like image, and quality orders size")
    func encodingSizes() throws {
        // Given a photo-like image: a gradient with sensor-like noise
        var generator = SeededGenerator(seed: 12)
        var pixels: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<64 {
                let noise = { Int(generator.next() % 12) }
                pixels += [UInt8(x * 3 + noise()), UInt8(y * 3 + noise()), UInt8(100 + noise()), 255]
            }
        }
        let image = Image(width: 64, height: 64, pixels: pixels)

        // When encoded
        let png = try ImageEncoder.png(image)
        let low = try WebPEncoder(compression: .lossy(quality: 40)).encode(image)
        let high = try WebPEncoder(compression: .lossy(quality: 95)).encode(image)

        // Then WebP is smaller and a lower quality is smaller still
        #expect(low.count < high.count)
        #expect(high.count < png.count)
        #expect(WebPEncoder(compression: .lossy(quality: 40)).identifier == "webp-q40")
        #expect(WebPEncoder(compression: .lossless).identifier == "webp-lossless")
    }

    @Test("a WebP variant format makes the renderer store WebP")
    func variantFormat() throws {
        // Given a renderer configured for lossless WebP variants
        var configuration = ImageUtil.Configuration()
        configuration.variantFormat = .webp(quality: nil)
        let renderer = VariantRenderer(configuration: configuration)

        // When a circle avatar is encoded
        let styled = try renderer.render(Self.gradient, style: .circle(diameter: 16))
        let variant = try renderer.encode(styled)

        // Then it is a WebP that decodes to the same pixels
        #expect(variant.contentType == "image/webp")
        #expect(ImageFormat.sniff(variant.data) == .webp)
        #expect(try ImageDecoder.decode(variant.data) == styled)
    }
}

extension RGBA {
    /// This colour premultiplied, as four bytes.
    var premultipliedBytes: [UInt8] {
        let value = premultiplied
        return [value.red, value.green, value.blue, value.alpha]
    }
}
