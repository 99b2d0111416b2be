import CJPEG
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("JPEG decoding", .offThePool)
struct JPEGDecodingTests {
    static let width = 64
    static let height = 48

    @Test("baseline and progressive RGB JPEGs decode close to the source", arguments: [false, true])
    func decodesRGB(progressive: Bool) throws {
        // Given a smooth picture encoded at quality 95
        let rgb = CodecFixtures.smoothRGB(width: Self.width, height: Self.height)
        let data = try CodecFixtures.jpeg(rgb, width: Self.width, height: Self.height, progressive: progressive)

        // When
        let image = try ImageDecoder.decode(data)

        // Then it is opaque and within JPEG's loss of the source
        #expect(image.width == Self.width && image.height == Self.height)
        let difference = CodecFixtures.difference(image.pixels, CodecFixtures.rgba(fromRGB: rgb))
        #expect(difference.mean < 2.0)
        #expect(difference.max <= 16)
        #expect(!image.hasTransparency)
    }

    @Test("grayscale JPEG decodes to equal R, G and B")
    func decodesGrayscale() throws {
        // Given a one-component JPEG with a horizontal ramp
        let gray = (0..<(Self.width * Self.height)).map { UInt8($0 % Self.width * 4) }
        let data = try CodecFixtures.jpeg(gray, width: Self.width, height: Self.height, input: CJPEG_INPUT_GRAY)

        // When
        let image = try ImageDecoder.decode(data)

        // Then
        let expected = gray.flatMap { value -> [UInt8] in [value, value, value, 255] }
        let difference = CodecFixtures.difference(image.pixels, expected)
        #expect(difference.mean < 1.5)
        #expect(difference.max <= 12)
    }

    /// CMYK inks that vary smoothly, and the RGB they mean: R = (1 - C)(1 - K).
    static func cmykSource() -> (inks: [UInt8], expected: [UInt8]) {
        var inks: [UInt8] = []
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let cyan = x * 3, magenta = y * 4, yellow = 40, black = (x + y) / 2
                inks += [UInt8(cyan), UInt8(magenta), UInt8(yellow), UInt8(black)]
                let keep = 255 - black
                expected += [cyan, magenta, yellow].map { UInt8(((255 - $0) * keep + 127) / 255) } + [255]
            }
        }
        return (inks, expected)
    }

    @Test(
        "CMYK and YCCK JPEGs convert to RGB (Adobe inverted and plain)",
        arguments: [
            (inverted: true, ycck: false), (inverted: true, ycck: true), (inverted: false, ycck: false),
        ])
    func decodesCMYK(variant: (inverted: Bool, ycck: Bool)) throws {
        // Given CMYK samples stored inverted with an Adobe marker (as Photoshop writes), or plain without one
        let (inks, expected) = Self.cmykSource()
        let stored = variant.inverted ? inks.map { 255 - $0 } : inks
        let data = try CodecFixtures.jpeg(
            stored, width: Self.width, height: Self.height, input: CJPEG_INPUT_CMYK,
            storeAsYCCK: variant.ycck, omitAdobeMarker: !variant.inverted)

        // When
        let image = try ImageDecoder.decode(data)

        // Then the colours match R = (1 - C)(1 - K) within JPEG's loss
        let difference = CodecFixtures.difference(image.pixels, expected)
        #expect(difference.mean < 2.5)
        #expect(difference.max <= 20)
    }

    @Test(
        "with headroom 1, DCT scaling picks the smallest scale that still covers the target (the draft rule)",
        arguments: [
            (target: PixelSize(width: 96, height: 96), expected: PixelSize(width: 250, height: 125)),
            (target: PixelSize(width: 251, height: 10), expected: PixelSize(width: 500, height: 250)),
            (target: PixelSize(width: 300, height: 200), expected: PixelSize(width: 500, height: 250)),
            (target: PixelSize(width: 1500, height: 1), expected: PixelSize(width: 1500, height: 750)),
            (target: PixelSize(width: 2000, height: 1000), expected: PixelSize(width: 2000, height: 1000)),
            (target: PixelSize(width: 4000, height: 4000), expected: PixelSize(width: 2000, height: 1000)),
        ])
    func picksDCTScale(case scaling: (target: PixelSize, expected: PixelSize)) throws {
        // Given a 2000×1000 JPEG
        let data = try Self.largeGrayJPEG()

        // When it is decoded toward a target size
        let options = ImageDecodingOptions(targetSize: scaling.target, downsamplingHeadroom: 1)
        let image = try ImageDecoder.decode(data, options: options)

        // Then the output is the smallest n/8 scale at least as large as the target
        #expect(PixelSize(width: image.width, height: image.height) == scaling.expected)
        #expect(image[image.width / 2, image.height / 2].red > 90)
    }

    @Test("the scale is chosen against the upright size when the orientation turns the image")
    func scaleAccountsForOrientation() throws {
        // Given a 2000×1000 JPEG tagged "rotate 90° clockwise" (upright 1000×2000)
        let data = try Self.largeGrayJPEG(app1: CodecFixtures.exifPayload(orientation: 6, bigEndian: true))

        // When decoded toward an upright 96×200
        let options = ImageDecodingOptions(targetSize: PixelSize(width: 96, height: 200), downsamplingHeadroom: 1)
        let image = try ImageDecoder.decode(data, options: options)

        // Then (without headroom) 1/8 (stored 250×125, upright 125×250) already covers it
        #expect(image.width == 125 && image.height == 250)
    }

    @Test("1×1 and 10000×1 JPEGs decode, also with a target size")
    func decodesTinyAndVeryWide() throws {
        // Given
        let tiny = try ImageEncoder.jpeg(Image(width: 1, height: 1, fill: RGBA(red: 200, green: 100, blue: 50)))
        let wide = try ImageEncoder.jpeg(Image(width: 10_000, height: 1, fill: RGBA(red: 10, green: 200, blue: 90)))

        // When
        let tinyImage = try ImageDecoder.decode(tiny)
        let wideImage = try ImageDecoder.decode(wide)
        let thumbnail = ImageDecodingOptions(targetSize: PixelSize(width: 96, height: 96))
        let scaledWide = try ImageDecoder.decode(wide, options: thumbnail)

        // Then
        #expect(tinyImage.width == 1 && tinyImage.height == 1)
        #expect(CodecFixtures.difference(tinyImage.pixels, [200, 100, 50, 255]).max <= 4)
        #expect(wideImage.width == 10_000 && wideImage.height == 1)
        #expect(scaledWide.width == 10_000 && scaledWide.height == 1)
    }

    /// A 2000×1000 mid-gray JPEG (fast to build: a one-component memset).
    static func largeGrayJPEG(app1: [UInt8]? = nil) throws -> Data {
        let gray = [UInt8](repeating: 128, count: 2000 * 1000)
        return try CodecFixtures.jpeg(
            gray, width: 2000, height: 1000, input: CJPEG_INPUT_GRAY, quality: 75,
            app1: app1)
    }
}
