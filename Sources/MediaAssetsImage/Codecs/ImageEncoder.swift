import CJPEG
import CPNG
import Foundation

/// Encodes premultiplied RGBA `Image`s to PNG or JPEG bytes in memory.
public enum ImageEncoder {
    /// PNG bytes for `image`: 8-bit RGBA when any pixel is transparent, else 8-bit RGB (smaller).
    ///
    /// Pixels are un-premultiplied first; the round trip through `ImageDecoder` gives back the same pixels.
    /// `compressionLevel` is zlib's (0...9, clamped; `nil` keeps libpng's default, 6). Small variants encode 3–4×
    /// faster at level 1 for about 20 % more bytes. Levels up to 3 filter every row with Sub alone, which took half
    /// the time of libpng's choice among its five filters per row for 96 px circles (photographic, smooth and flat
    /// ones) at sizes within 2 % of it; higher levels let libpng choose.
    ///
    /// - Throws: `ImageError.encodingFailed`
    public static func png(_ image: Image, compressionLevel: Int? = nil) throws -> Data {
        try png(image, compressionLevel: compressionLevel, interlaced: false)
    }

    /// PNG bytes as `png(_:compressionLevel:)` writes them, Adam7-interlaced when asked (benchmarks measure
    /// what an interlaced file costs to decode).
    package static func png(_ image: Image, compressionLevel: Int?, interlaced: Bool) throws -> Data {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw ImageError.encodingFailed(
                format: .png, reason: "\(image.width)×\(image.height) exceeds PNG's 2³¹−1")
        }
        var options = cpng_encode_options()
        options.width = UInt32(truncatingIfNeeded: image.width)
        options.height = UInt32(truncatingIfNeeded: image.height)
        options.stride = image.width * 4
        options.bit_depth = 8
        options.compression_level = compressionLevel.map { Int32(min(9, max(0, $0))) } ?? -1
        if (0...3).contains(options.compression_level) { options.filters = CPNG_FILTER_SUB }
        options.interlaced = interlaced ? 1 : 0
        if image.hasTransparency {
            options.color_type = Int32(CPNG_COLOR_RGBA)
            var straight = image.pixels
            straight.withUnsafeMutableBufferPointer { PixelConversion.unpremultiply($0) }
            return try encodePNG(straight, options: options)
        }
        // Opaque: premultiplied equals straight, and libpng drops the alpha byte while writing.
        options.color_type = Int32(CPNG_COLOR_RGB)
        options.strip_filler = 1
        return try encodePNG(image.pixels, options: options)
    }

    /// JPEG bytes for `image` at `quality` (clamped to 1...100; 85 is a good default for photos).
    ///
    /// JPEG has no alpha: transparent areas are written as their premultiplied colour, which is the image
    /// composited over black. Encode images with transparency as PNG (`Image.hasTransparency`).
    /// Baseline, 4:2:0 chroma subsampling, libjpeg-turbo's accurate DCT.
    ///
    /// - Throws: `ImageError.encodingFailed`, for example when a side is longer than JPEG's 65500 pixels.
    public static func jpeg(_ image: Image, quality: Int = 85) throws -> Data {
        try jpeg(image, quality: quality, progressive: false)
    }

    /// JPEG bytes as `jpeg(_:quality:)` writes them, or progressive (libjpeg's standard script of 10 scans),
    /// for benchmarks of progressive decoding.
    package static func jpeg(_ image: Image, quality: Int, progressive: Bool) throws -> Data {
        guard image.width <= 65_500, image.height <= 65_500 else {
            throw ImageError.encodingFailed(
                format: .jpeg, reason: "\(image.width)×\(image.height) exceeds JPEG's 65500")
        }
        var options = cjpeg_encode_options()
        options.width = Int32(clamping: image.width)
        options.height = Int32(clamping: image.height)
        options.stride = image.width * 4
        options.input = CJPEG_INPUT_RGBA
        options.quality = Int32(min(100, max(1, quality)))
        options.progressive = progressive ? 1 : 0
        return try encodeJPEG(image.pixels, options: options)
    }

    /// Runs the PNG shim over raw rows laid out as `options` says (also used by tests for every PNG variant).
    static func encodePNG(_ rows: [UInt8], options: cpng_encode_options) throws -> Data {
        var options = options
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = rows.withUnsafeBufferPointer { rowBuffer in
            guard let base = rowBuffer.baseAddress,
                rowBuffer.count / max(options.stride, 1) >= Int(options.height)
            else {
                return CPNG_ERROR_INVALID_ARGUMENT
            }
            return cpng_encode(base, &options, &output, &outputSize, &message, message.count)
        }
        guard status == CPNG_OK, let output else {
            throw ImageError.encodingFailed(format: .png, reason: reason(status.rawValue, message))
        }
        return Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
    }

    /// Runs the JPEG shim over raw pixels laid out as `options` says (also used by tests for JPEG variants).
    static func encodeJPEG(_ pixels: [UInt8], options: cjpeg_encode_options) throws -> Data {
        var options = options
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { pixelBuffer in
            guard let base = pixelBuffer.baseAddress,
                pixelBuffer.count / max(options.stride, 1) >= Int(options.height)
            else {
                return CJPEG_ERROR_INVALID_ARGUMENT
            }
            return cjpeg_encode(base, &options, &output, &outputSize, &message, message.count)
        }
        guard status == CJPEG_OK, let output else {
            throw ImageError.encodingFailed(format: .jpeg, reason: reason(status.rawValue, message))
        }
        return Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
    }

    private static func reason(_ status: UInt32, _ message: [CChar]) -> String {
        let text = message.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { String(cString: $0) } ?? ""
        }
        return text.isEmpty ? "status \(status)" : text
    }
}
