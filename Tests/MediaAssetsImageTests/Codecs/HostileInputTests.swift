import CJPEG
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("Corrupt, truncated and hostile input", .offThePool)
struct HostileInputTests {
    static func noisyJPEG(progressive: Bool) throws -> Data {
        var generator = CodecTestRandom(seed: 7)
        let rgb = CodecFixtures.smoothRGB(width: 48, height: 40).map { $0 &+ UInt8(generator.next() % 24) }
        return try CodecFixtures.jpeg(rgb, width: 48, height: 40, quality: 90, progressive: progressive)
    }

    static func noisyPNG() throws -> Data {
        try PNGVariant(colorType: 6, bitDepth: 8, interlaced: true, transparency: false).encoded()
    }

    @Test("a JPEG cut anywhere before its end is refused as truncated or corrupt", arguments: [false, true])
    func rejectsTruncatedJPEG(progressive: Bool) throws {
        // Given a whole JPEG
        let data = try Self.noisyJPEG(progressive: progressive)
        #expect(throws: Never.self) { try ImageDecoder.decode(data) }

        // When it is cut at every offset (header, tables and entropy-coded data alike)
        for length in 0..<(data.count - 1) {
            let cut = data.prefix(length)

            // Then decoding throws a typed error and never returns a grey-filled partial image
            #expect(throws: ImageError.self, "cut at \(length) of \(data.count)") { try ImageDecoder.decode(cut) }
        }
        let midway = data.prefix(data.count * 2 / 3)
        #expect(Self.isTruncation(midway), "a cut inside the pixel data reports truncation")
    }

    @Test("a PNG cut anywhere is refused as truncated or corrupt")
    func rejectsTruncatedPNG() throws {
        // Given a whole PNG
        let data = try Self.noisyPNG()

        // When / Then every shorter prefix throws
        for length in 0..<data.count {
            #expect(throws: ImageError.self, "cut at \(length)") { try ImageDecoder.decode(data.prefix(length)) }
        }
        #expect(Self.isTruncation(data.prefix(data.count / 2)))
    }

    @Test("flipping any byte of a PNG is caught (CRC, zlib or chunk checks)")
    func rejectsFlippedPNGBytes() throws {
        // Given a whole PNG
        let data = try Self.noisyPNG()

        // When each byte after the signature is flipped in turn
        for offset in 8..<data.count {
            var bytes = [UInt8](data)
            bytes[offset] ^= 0x5A

            // Then decoding throws
            #expect(throws: ImageError.self, "flip at \(offset)") { try ImageDecoder.decode(Data(bytes)) }
        }
    }

    @Test("a PNG with a bad IHDR CRC is corrupt")
    func rejectsBadCRC() throws {
        // Given a PNG whose IHDR checksum is wrong
        var bytes = [UInt8](try Self.noisyPNG())
        bytes[29] ^= 0xFF

        // When / Then
        #expect { try ImageDecoder.decode(Data(bytes)) } throws: { error in
            guard case .corrupt(format: .png, let reason) = error as? ImageError else { return false }
            return reason.contains("CRC")
        }
    }

    @Test("flipped bytes in a JPEG never crash: a typed error or an image of the declared size")
    func survivesFlippedJPEGBytes() throws {
        // Given a whole JPEG
        for progressive in [false, true] {
            let data = try Self.noisyJPEG(progressive: progressive)
            var generator = CodecTestRandom(seed: progressive ? 2 : 1)

            // When bytes are flipped one at a time, and several at once
            for offset in 2..<data.count {
                var bytes = [UInt8](data)
                bytes[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                if offset % 3 == 0 { bytes[Int(generator.next() % UInt64(bytes.count))] ^= 0xFF }

                // Then either a typed error or a decoded image of sane size comes back
                do {
                    let image = try ImageDecoder.decode(Data(bytes))
                    #expect(image.pixels.count == image.width * image.height * 4)
                } catch {
                    #expect(error is ImageError, "flip at \(offset): \(error)")
                }
            }
        }
    }

    @Test(
        "headers claiming huge sizes are refused before any pixel allocation",
        arguments: [
            (width: UInt32(100_000), height: UInt32(100_000)), (width: 0x7FFF_FFFF, height: 0x7FFF_FFFF),
            (width: 20_000, height: 5_001),
        ])
    func refusesPNGBombs(size: (width: UInt32, height: UInt32)) throws {
        // Given a tiny PNG whose IHDR claims a huge size (checksum fixed up so only the size is wrong)
        let data = try CodecFixtures.pngClaiming(width: size.width, height: size.height)

        // When / Then its header is readable and decoding is refused with the limit
        let header = try ImageDecoder.header(of: data)
        #expect(header.width == Int(size.width) && header.height == Int(size.height))
        #expect(
            throws: ImageError.tooManyPixels(
                width: Int(size.width), height: Int(size.height),
                limit: 100_000_000)
        ) {
            try ImageDecoder.decode(data)
        }
    }

    @Test("a JPEG whose frame header claims 60000×60000 is refused before decoding")
    func refusesJPEGBomb() throws {
        // Given a small JPEG with its SOF height and width patched
        let real = try CodecFixtures.jpeg(
            [UInt8](repeating: 90, count: 256), width: 16, height: 16,
            input: CJPEG_INPUT_GRAY)
        let frame = try #require(CodecFixtures.startOfFrameOffset(in: real))
        var data = CodecFixtures.patching(real, at: frame + 5, bigEndian: 60_000, byteCount: 2)
        data = CodecFixtures.patching(data, at: frame + 7, bigEndian: 60_000, byteCount: 2)

        // When / Then
        #expect(try ImageDecoder.header(of: data).width == 60_000)
        #expect(throws: ImageError.tooManyPixels(width: 60_000, height: 60_000, limit: 100_000_000)) {
            try ImageDecoder.decode(data, options: ImageDecodingOptions(targetSize: PixelSize(width: 96, height: 96)))
        }
    }

    @Test("maxPixelCount is honoured exactly")
    func honoursCustomLimit() throws {
        // Given a 13×9 PNG (117 pixels)
        let data = try Self.noisyPNG()

        // When / Then
        #expect(throws: ImageError.tooManyPixels(width: 13, height: 9, limit: 116)) {
            try ImageDecoder.decode(data, options: ImageDecodingOptions(maxPixelCount: 116))
        }
        #expect(throws: Never.self) { try ImageDecoder.decode(data, options: ImageDecodingOptions(maxPixelCount: 117)) }
    }

    @Test("zero width or height is refused", arguments: [(UInt32(0), UInt32(10)), (10, 0)])
    func refusesZeroDimensions(size: (UInt32, UInt32)) throws {
        // Given a PNG and a JPEG claiming a zero dimension
        let png = try CodecFixtures.pngClaiming(width: size.0, height: size.1)
        let real = try CodecFixtures.jpeg(
            [UInt8](repeating: 90, count: 64), width: 8, height: 8,
            input: CJPEG_INPUT_GRAY)
        let frame = try #require(CodecFixtures.startOfFrameOffset(in: real))
        var jpeg = CodecFixtures.patching(real, at: frame + 5, bigEndian: size.1, byteCount: 2)
        jpeg = CodecFixtures.patching(jpeg, at: frame + 7, bigEndian: size.0, byteCount: 2)

        // When / Then
        #expect(throws: ImageError.self) { try ImageDecoder.decode(png) }
        #expect(throws: ImageError.self) { try ImageDecoder.decode(jpeg) }
        #expect(throws: ImageError.self) { try ImageDecoder.header(of: jpeg) }
    }

    @Test("magic bytes followed by garbage are corrupt, not a crash")
    func rejectsGarbageAfterMagic() {
        // Given
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02]) + Data(repeating: 0x41, count: 64)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x41, count: 64)

        // When / Then
        #expect(throws: ImageError.self) { try ImageDecoder.decode(jpeg) }
        #expect(throws: ImageError.self) { try ImageDecoder.decode(png) }
        #expect(throws: ImageError.self) { try ImageDecoder.header(of: png) }
    }

    static func isTruncation(_ data: Data) -> Bool {
        do {
            _ = try ImageDecoder.decode(data)
            return false
        } catch let ImageError.truncated(format, reason) {
            return !reason.isEmpty && (format == .jpeg || format == .png)
        } catch {
            return false
        }
    }
}

/// A tiny deterministic generator for test noise.
struct CodecTestRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

@Suite("JPEG scan-count guard", .offThePool)
struct JPEGScanLimitTests {
    @Test("a progressive JPEG with more scans than the limit fails as corrupt instead of decoding forever")
    func stopsAtScanLimit() throws {
        // Given a progressive JPEG (about 10 scans) and a decoder limited to 3 scans
        let rgb = CodecFixtures.smoothRGB(width: 32, height: 32)
        let data = try CodecFixtures.jpeg(rgb, width: 32, height: 32, progressive: true)

        // When it is started
        let (limited, message) = data.withUnsafeBytes { bytes -> (cjpeg_status, String) in
            let decoder = cjpeg_decoder_create(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            defer { cjpeg_decoder_destroy(decoder) }
            cjpeg_decoder_set_scan_limit(decoder, 3)
            var header = cjpeg_header()
            var width: Int32 = 0
            var height: Int32 = 0
            guard cjpeg_read_header(decoder, &header) == CJPEG_OK else { return (CJPEG_OK, "header failed") }
            return (cjpeg_start(decoder, 8, &width, &height), String(cString: cjpeg_decoder_message(decoder)))
        }

        // Then it stops with a typed status, while the default limit decodes the same file
        #expect(limited == CJPEG_ERROR_CORRUPT)
        #expect(message.contains("more than 3 scans"))
        #expect(try ImageDecoder.decode(data).width == 32)
    }
}

@Suite("Codec concurrency")
struct CodecConcurrencyTests {
    @Test("many decodes and encodes run in parallel without interfering")
    func decodesInParallel() async throws {
        // Given one JPEG and one PNG with known content
        let rgb = CodecFixtures.smoothRGB(width: 40, height: 30)
        let jpeg = try CodecFixtures.jpeg(rgb, width: 40, height: 30)
        let png = try PNGVariant(colorType: 3, bitDepth: 4, interlaced: true, transparency: true).encoded()
        let expectedJPEG = try ImageDecoder.decode(jpeg)
        let expectedPNG = try ImageDecoder.decode(png)

        // When 64 tasks decode (and re-encode) them at once
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    if index % 2 == 0 { return try ImageDecoder.decode(jpeg) == expectedJPEG }
                    let decoded = try ImageDecoder.decode(png)
                    return try decoded == expectedPNG && ImageDecoder.decode(ImageEncoder.png(decoded)) == decoded
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }

        // Then every task saw the same pixels
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}
