import CZlib
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("Image encoding round trips", .offThePool)
struct ImageEncoderTests {
    /// A premultiplied picture with every alpha level, including fully transparent and fully opaque pixels.
    static func translucentImage(width: Int = 40, height: Int = 30) -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let straight = RGBA(
                    red: UInt8(x * 6), green: UInt8(y * 8), blue: UInt8((x * y) % 256),
                    alpha: UInt8((x * 7 + y * 13) % 256))
                let premultiplied = straight.premultiplied
                pixels += [premultiplied.red, premultiplied.green, premultiplied.blue, premultiplied.alpha]
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test("PNG round trip of a translucent image is exact, through a real file")
    func pngRoundTripIsExact() throws {
        // Given a translucent image and a per-test directory
        let image = Self.translucentImage()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("codec-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("translucent.png")

        // When it is encoded, written, read back and decoded
        try ImageEncoder.png(image).write(to: file)
        let decoded = try ImageDecoder.decode(try Data(contentsOf: file))

        // Then every premultiplied byte is the same
        #expect(decoded == image)
    }

    @Test("fast PNG levels filter every row with Sub; higher ones let libpng choose per row")
    func fastLevelsFilterWithSub() throws {
        // Given vertical stripes, whose rows after the first are best filtered with Up
        var pixels: [UInt8] = []
        for _ in 0..<16 {
            for x in 0..<16 { pixels += x % 3 == 0 ? [200, 40, 90, 255] : [10, 220, 30, 255] }
        }
        let stripes = Image(width: 16, height: 16, pixels: pixels)

        // When they are encoded at level 1 and at level 9
        let fast = try Self.rowFilters(
            of: try ImageEncoder.png(stripes, compressionLevel: 1), rows: 16, rowBytes: 16 * 3)
        let small = try Self.rowFilters(
            of: try ImageEncoder.png(stripes, compressionLevel: 9), rows: 16, rowBytes: 16 * 3)

        // Then level 1 used Sub (1) for every row, and level 9 chose Up (2) for the repeated rows
        #expect(fast == Array(repeating: 1, count: 16))
        #expect(small.dropFirst().allSatisfy { $0 == 2 })
        #expect(try ImageDecoder.decode(try ImageEncoder.png(stripes, compressionLevel: 1)) == stripes)
    }

    /// The filter byte of each of the `rows` rows of a non-interlaced 8-bit PNG whose rows are `rowBytes` long.
    static func rowFilters(of png: Data, rows: Int, rowBytes: Int) throws -> [UInt8] {
        var compressed: [UInt8] = []
        var offset = 8
        let bytes = [UInt8](png)
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IDAT" { compressed += bytes[(offset + 8)..<(offset + 8 + length)] }
            offset += 12 + length
        }
        var inflated = [UInt8](repeating: 0, count: rows * (rowBytes + 1))
        var inflatedCount = UInt(inflated.count)
        let status = uncompress(&inflated, &inflatedCount, compressed, UInt(compressed.count))
        try #require(status == Z_OK && Int(inflatedCount) == inflated.count)
        return stride(from: 0, to: inflated.count, by: rowBytes + 1).map { inflated[$0] }
    }

    @Test("opaque images are written as RGB PNG, translucent ones as RGBA")
    func choosesPNGColourType() throws {
        // Given
        let opaque = Image(width: 5, height: 5, fill: RGBA(red: 1, green: 2, blue: 3))
        let translucent = Self.translucentImage(width: 5, height: 5)

        // When
        let opaqueData = try ImageEncoder.png(opaque)
        let translucentData = try ImageEncoder.png(translucent)

        // Then the IHDR colour type byte (offset 25) says RGB (2) or RGBA (6), and both decode back
        #expect(opaqueData[opaqueData.startIndex + 25] == 2)
        #expect(translucentData[translucentData.startIndex + 25] == 6)
        #expect(try ImageDecoder.decode(opaqueData) == opaque)
        #expect(try ImageDecoder.header(of: opaqueData).hasAlpha == false)
    }

    @Test("JPEG round trip stays close, and quality trades size for fidelity")
    func jpegRoundTrip() throws {
        // Given a smooth opaque picture
        let image = Image(
            width: 64, height: 48,
            pixels: CodecFixtures.rgba(fromRGB: CodecFixtures.smoothRGB(width: 64, height: 48)))

        // When it is encoded at two qualities
        let high = try ImageEncoder.jpeg(image, quality: 95)
        let low = try ImageEncoder.jpeg(image, quality: 10)
        let decodedHigh = try ImageDecoder.decode(high)
        let decodedLow = try ImageDecoder.decode(low)

        // Then
        #expect(ImageFormat.sniff(high) == .jpeg)
        #expect(low.count < high.count)
        let highDifference = CodecFixtures.difference(decodedHigh.pixels, image.pixels)
        let lowDifference = CodecFixtures.difference(decodedLow.pixels, image.pixels)
        #expect(highDifference.mean < 2.0)
        #expect(lowDifference.mean > highDifference.mean)
    }

    @Test("out-of-range JPEG quality is clamped, not a failure", arguments: [-5, 0, 101, 1000])
    func clampsQuality(quality: Int) throws {
        // Given
        let image = Image(width: 8, height: 8, fill: .white)

        // When
        let data = try ImageEncoder.jpeg(image, quality: quality)

        // Then
        #expect(try ImageDecoder.decode(data).width == 8)
    }

    @Test("JPEG of a translucent image is the image over black (its premultiplied colours)")
    func jpegDropsAlphaOverBlack() throws {
        // Given a half-transparent white image (premultiplied 128, 128, 128, 128)
        let image = Image(width: 16, height: 16, fill: RGBA(red: 255, green: 255, blue: 255, alpha: 128))

        // When
        let decoded = try ImageDecoder.decode(try ImageEncoder.jpeg(image, quality: 100))

        // Then it is opaque mid-gray
        let pixel = decoded[8, 8]
        #expect(pixel.alpha == 255)
        #expect(abs(Int(pixel.red) - 128) <= 2)
    }
}

@Suite("Image encoding limits", .offThePool)
struct ImageEncoderLimitTests {
    @Test("a side longer than JPEG allows is an encoding error, while PNG takes it")
    func refusesOversizedJPEG() throws {
        // Given a 70000×1 image (JPEG stops at 65500)
        let image = Image(width: 70_000, height: 1, fill: .black)

        // When / Then
        #expect { try ImageEncoder.jpeg(image) } throws: { error in
            guard case .encodingFailed(format: .jpeg, let reason) = error as? ImageError else { return false }
            return reason.contains("70000")
        }
        #expect(try ImageDecoder.decode(try ImageEncoder.png(image)) == image)
    }
}
