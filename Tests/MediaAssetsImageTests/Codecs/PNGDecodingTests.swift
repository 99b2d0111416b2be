import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("PNG decoding", .offThePool)
struct PNGDecodingTests {
    @Test("every colour type, bit depth, tRNS and interlace decodes to the exact pixels", arguments: PNGVariant.all)
    func decodesVariantExactly(variant: PNGVariant) throws {
        // Given a PNG written by libpng from known samples
        let data = try variant.encoded()

        // When it is decoded
        let image = try ImageDecoder.decode(data)

        // Then every premultiplied RGBA byte matches the expected conversion
        #expect(image.width == variant.width)
        #expect(image.height == variant.height)
        #expect(image.pixels == variant.expectedPixels)
    }

    @Test("the header reports the size and whether there is alpha, without decoding pixels")
    func headerReportsSizeAndAlpha() throws {
        // Given an opaque gray PNG and a palette PNG with tRNS
        let opaque = try PNGVariant(colorType: 0, bitDepth: 8, interlaced: false, transparency: false).encoded()
        let palette = try PNGVariant(colorType: 3, bitDepth: 4, interlaced: true, transparency: true).encoded()

        // When their headers are read
        let opaqueHeader = try ImageDecoder.header(of: opaque)
        let paletteHeader = try ImageDecoder.header(of: palette)

        // Then size, format, orientation and alpha are reported
        #expect(
            opaqueHeader
                == ImageHeader(
                    format: .png, width: 13, height: 9, orientation: .identity,
                    hasAlpha: false))
        #expect(paletteHeader.hasAlpha)
        #expect(paletteHeader.orientedSize == PixelSize(width: 13, height: 9))
    }

    @Test("1×1 and 10000×1 PNGs decode")
    func decodesTinyAndVeryWide() throws {
        // Given a 1×1 half-transparent PNG and a 10000×1 gradient PNG
        let tiny = Image(width: 1, height: 1, pixels: [40, 20, 10, 128])
        let widePixels = (0..<10_000).flatMap { x -> [UInt8] in [UInt8(x % 256), UInt8(x / 40 % 256), 7, 255] }
        let wide = Image(width: 10_000, height: 1, pixels: widePixels)

        // When they are encoded and decoded
        let decodedTiny = try ImageDecoder.decode(try ImageEncoder.png(tiny))
        let decodedWide = try ImageDecoder.decode(try ImageEncoder.png(wide))

        // Then the pixels come back unchanged
        #expect(decodedTiny == tiny)
        #expect(decodedWide == wide)
    }
}
