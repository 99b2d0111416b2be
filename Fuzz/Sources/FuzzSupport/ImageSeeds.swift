import CFuzzSupport
import Foundation
@_spi(Fuzzing) import MediaAssetsImage

/// Small images encoded by the package's own encoders, plus PNGs carrying the text chunks that libpng
/// buffers whole (the class of the 57-byte PNG that cost 1 GiB).
enum ImageSeeds {
    static func jpeg() -> [String: Data] {
        var seeds: [String: Data] = [:]
        for (width, height, quality) in [(16, 16, 90), (33, 17, 20), (8, 64, 75)] {
            let image = pattern(width: width, height: height, opaque: true)
            seeds["seed-\(width)x\(height)-q\(quality).jpg"] = try? ImageEncoder.jpeg(quality: quality).encode(image)
        }
        // A progressive file (the package's encoder writes baseline only), from the codec tests' samples.
        return seeds.merging(FormatSeeds.samples(endingIn: ".jpg")) { a, _ in a }
    }

    static func png() -> [String: Data] {
        var seeds: [String: Data] = [:]
        for (width, height, opaque, level) in [(16, 16, true, 6), (9, 31, false, 9), (40, 3, false, 0)] {
            let image = pattern(width: width, height: height, opaque: opaque)
            seeds["seed-\(width)x\(height)-\(opaque ? "rgb" : "rgba")-z\(level).png"] =
                try? FuzzSeedEncoding.png(image, level: level)
        }
        if let plain = try? ImageEncoder.png.encode(pattern(width: 4, height: 4, opaque: true)) {
            seeds["seed-text.png"] = inserting(chunk: "tEXt", Data("Comment\u{0}fuzz".utf8), into: plain)
            seeds["seed-ztxt.png"] = inserting(
                chunk: "zTXt", Data("Comment\u{0}\u{0}".utf8) + compressed("fuzz"), into: plain)
            seeds["seed-itxt.png"] = inserting(
                chunk: "iTXt", Data("Comment\u{0}\u{0}\u{0}en\u{0}\u{0}fuzz".utf8), into: plain)
        }
        return seeds
    }

    /// A gradient with a little noise, so every encoder path (filters, DCT blocks) has work.
    static func pattern(width: Int, height: Int, opaque: Bool) -> Image {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let alpha = opaque ? 255 : UInt8((x * 255) / max(width - 1, 1))
                let red = UInt8((x * 255) / max(width - 1, 1)), green = UInt8((y * 255) / max(height - 1, 1))
                let blue = UInt8(truncatingIfNeeded: x &* 31 &+ y &* 17)
                // Premultiplied, as `Image` stores it.
                for channel in [red, green, blue] {
                    pixels.append(UInt8(Int(channel) * Int(alpha) / 255))
                }
                pixels.append(alpha)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// `png` with a `type` chunk holding `body` placed right after IHDR (signature 8 + IHDR 25 bytes).
    static func inserting(chunk type: String, _ body: Data, into png: Data) -> Data {
        var chunk = Data()
        chunk.appendBigEndian(UInt32(body.count))
        let typeAndBody = Data(type.utf8) + body
        chunk.append(typeAndBody)
        chunk.appendBigEndian(crc32(typeAndBody))
        var result = Data(png.prefix(33))
        result.append(chunk)
        result.append(png.dropFirst(33))
        return result
    }

    static func compressed(_ text: String) -> Data {
        let input = Array(text.utf8)
        var size = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        guard compress(&output, &size, input, uLong(input.count)) == Z_OK else { return Data() }
        return Data(output.prefix(Int(size)))
    }
}

func crc32(_ data: Data) -> UInt32 {
    data.withUnsafeBytes { bytes in
        UInt32(crc32(0, bytes.bindMemory(to: Bytef.self).baseAddress, uInt(bytes.count)))
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendLittleEndian<each Integer: FixedWidthInteger>(_ values: repeat each Integer) {
        for value in repeat each values {
            Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
        }
    }
}
