import CJPEG
import CPNG
import Foundation

@testable import MediaAssetsImage

/// Builds real JPEG and PNG files in memory through libjpeg and libpng themselves, plus helpers to compare.
enum CodecFixtures {
    /// A smooth, asymmetric, opaque RGB test picture (gradients compress well and survive JPEG nearly intact).
    static func smoothRGB(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(x * 255 / max(width - 1, 1))
                pixels[offset + 1] = UInt8(y * 255 / max(height - 1, 1))
                pixels[offset + 2] = UInt8(((x + y) * 127 / max(width + height - 2, 1)) + 64)
            }
        }
        return pixels
    }

    /// RGB → opaque RGBA (premultiplied equals straight when opaque).
    static func rgba(fromRGB rgb: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 255, count: rgb.count / 3 * 4)
        for index in 0..<(rgb.count / 3) {
            result[index * 4] = rgb[index * 3]
            result[index * 4 + 1] = rgb[index * 3 + 1]
            result[index * 4 + 2] = rgb[index * 3 + 2]
        }
        return result
    }

    /// Encodes through the JPEG shim with every option the tests need.
    static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, input: cjpeg_input = CJPEG_INPUT_RGB, quality: Int = 95,
        progressive: Bool = false, storeAsYCCK: Bool = false, omitAdobeMarker: Bool = false, app1: [UInt8]? = nil
    ) throws -> Data {
        let components = input == CJPEG_INPUT_GRAY ? 1 : (input == CJPEG_INPUT_RGB ? 3 : 4)
        var options = cjpeg_encode_options()
        options.width = Int32(width)
        options.height = Int32(height)
        options.stride = width * components
        options.input = input
        options.quality = Int32(quality)
        options.progressive = progressive ? 1 : 0
        options.store_as_ycck = storeAsYCCK ? 1 : 0
        options.omit_adobe_marker = omitAdobeMarker ? 1 : 0
        guard let app1 else { return try ImageEncoder.encodeJPEG(pixels, options: options) }
        return try app1.withUnsafeBufferPointer { marker in
            options.app1 = marker.baseAddress
            options.app1_size = marker.count
            return try ImageEncoder.encodeJPEG(pixels, options: options)
        }
    }

    /// An APP1 payload "Exif\0\0" + TIFF whose IFD0 holds a filler tag, then Orientation.
    static func exifPayload(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            let high = UInt8(value >> 8 & 0xFF)
            let low = UInt8(value & 0xFF)
            return bigEndian ? [high, low] : [low, high]
        }
        func u32(_ value: Int) -> [UInt8] {
            bigEndian ? u16(value >> 16) + u16(value & 0xFFFF) : u16(value & 0xFFFF) + u16(value >> 16)
        }
        var bytes: [UInt8] = Array("Exif".utf8) + [0, 0]
        bytes += bigEndian ? Array("MM".utf8) : Array("II".utf8)
        bytes += u16(42) + u32(8) + u16(2)
        bytes += u16(0x010F) + u16(2) + u32(4) + Array("Cam\0".utf8)  // Make, inline ASCII
        bytes += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)  // Orientation, SHORT
        bytes += u32(0)
        return bytes
    }

    /// Mean and maximum absolute difference per channel between two RGBA buffers (alpha included).
    static func difference(_ lhs: [UInt8], _ rhs: [UInt8]) -> (mean: Double, max: Int) {
        guard lhs.count == rhs.count, !lhs.isEmpty else { return (.infinity, Int.max) }
        var total = 0
        var largest = 0
        for index in lhs.indices {
            let delta = abs(Int(lhs[index]) - Int(rhs[index]))
            total += delta
            largest = max(largest, delta)
        }
        return (Double(total) / Double(lhs.count), largest)
    }

    /// The bytes of `data` with big-endian `value` written at `offset`.
    static func patching(_ data: Data, at offset: Int, bigEndian value: UInt32, byteCount: Int) -> Data {
        var bytes = [UInt8](data)
        for index in 0..<byteCount {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (byteCount - 1 - index)))
        }
        return Data(bytes)
    }

    /// The offset of the first JPEG SOFn marker (FF C0…C2), or nil.
    static func startOfFrameOffset(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        for index in 0..<(bytes.count - 1) where bytes[index] == 0xFF && (0xC0...0xC2).contains(bytes[index + 1]) {
            return index
        }
        return nil
    }

    /// A PNG whose IHDR claims `width`×`height` (CRC fixed up), built from a real small PNG.
    static func pngClaiming(width: UInt32, height: UInt32) throws -> Data {
        let real = try ImageEncoder.png(Image(width: 4, height: 4, fill: .white))
        var patched = patching(real, at: 16, bigEndian: width, byteCount: 4)
        patched = patching(patched, at: 20, bigEndian: height, byteCount: 4)
        let crc = crc32([UInt8](patched[12..<29]))
        return patching(patched, at: 29, bigEndian: crc, byteCount: 4)
    }

    /// CRC-32 (the PNG chunk checksum), for patching test headers.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
