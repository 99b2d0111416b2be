import CJPEG
import CPNG
import Foundation

/// The one way to encode an image: a format with its settings.
///
/// ```swift
/// let png = try ImageEncoder.png.encode(avatar)
/// let webp = try ImageEncoder.webp(quality: 80).encode(photo)
/// ```
///
/// It is also how `ImageUtil` stores styled variants (`ImageUtil.Configuration.variantFormat`) and what
/// `encodedImage(for:style:format:)` returns. The format and its quality are part of the variant's key
/// (`<key>@<style>@<identifier>`), so utils that store different formats on one manager never overwrite each
/// other's variants.
public enum ImageEncoder: Sendable, Hashable {
    /// PNG when any pixel is transparent (a circle's corners), JPEG at `jpegQuality` (1...100) otherwise.
    case automatic(jpegQuality: Int)
    /// Always PNG: lossless, larger for photographic rectangles.
    case png
    /// Always JPEG at `quality` (1...100); transparent pixels are composited over black.
    case jpeg(quality: Int)
    /// Always WebP (libwebp loaded at run time): lossy at `quality` (0...100) with lossless alpha, or
    /// lossless when `quality` is `nil`. Several times smaller than PNG for photographic avatars.
    case webp(quality: Int?)
    /// Always AVIF (libheif loaded at run time, where its build has an AV1 encoder: `avifAvailability` is `nil`)
    /// at `quality` (0...100), or lossless when `nil`. Smaller than WebP, and far slower to encode.
    case avif(quality: Int?)

    /// The variant key's part naming the format and its quality (clamped as the encoder clamps it):
    /// `auto-q85`, `png`, `jpeg-q85`, `webp-q80`, `webp-lossless`, `avif-q60`, `avif-lossless`.
    public var identifier: String {
        switch self {
        case .automatic(let quality): return "auto-q\(Self.jpegQuality(quality))"
        case .png: return "png"
        case .jpeg(let quality): return JPEGEncoder(quality: Self.jpegQuality(quality)).identifier
        case .webp(let quality):
            return WebPEncoder(compression: quality.map { .lossy(quality: min(100, max(0, $0))) } ?? .lossless)
                .identifier
        case .avif(let quality): return AVIFEncoder(quality: quality).identifier
        }
    }

    /// The encoder of `image` in this format (for `.automatic`, PNG or JPEG by the image's transparency);
    /// PNG at `pngCompressionLevel`.
    package func encoder(for image: Image, pngCompressionLevel: Int? = nil) -> any ImageEncoding {
        switch self {
        case .automatic(let quality) where !image.hasTransparency: return JPEGEncoder(quality: quality)
        case .automatic, .png: return PNGEncoder(compressionLevel: pngCompressionLevel)
        case .jpeg(let quality): return JPEGEncoder(quality: quality)
        case .webp(let quality): return WebPEncoder(compression: quality.map { .lossy(quality: $0) } ?? .lossless)
        case .avif(let quality): return AVIFEncoder(quality: quality)
        }
    }

    /// The bytes of `image` in this format.
    ///
    /// PNG is 8-bit RGBA when any pixel is transparent, else RGB; pixels are un-premultiplied first, and decoding
    /// the bytes gives back the same pixels. JPEG has no alpha: transparent areas are written as their
    /// premultiplied colour, which is the image composited over black (baseline, 4:2:0, libjpeg-turbo's
    /// accurate DCT). WebP is lossy with lossless alpha, or lossless; AVIF keeps alpha.
    ///
    /// - Throws: `ImageError.encodingFailed` (for example a JPEG side longer than 65500 pixels),
    ///   `.libraryMissing` naming the Debian package for WebP and AVIF, `.unsupported` for AVIF where libheif
    ///   has no AV1 encoder.
    public func encode(_ image: Image) throws -> Data {
        try encoder(for: image).encode(image)
    }

    /// Why this system cannot encode AVIF (`ImageError.libraryMissing` or `.unsupported`), or `nil` when it can:
    /// libheif loads and its build has an AV1 encoder plugin.
    public static var avifAvailability: ImageError? { AVIFEncoder.availability }

    private static func jpegQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }
}

extension ImageEncoder {
    /// PNG bytes for `image` at zlib `compressionLevel`: 8-bit RGBA when any pixel is transparent, else 8-bit
    /// RGB (smaller).
    ///
    /// Pixels are un-premultiplied first; the round trip through `ImageDecoder` gives back the same pixels.
    /// `compressionLevel` is zlib's (0...9, clamped; `nil` keeps libpng's default, 6). Small variants encode 3–4×
    /// faster at level 1 for about 20 % more bytes. Levels up to 3 filter every row with Sub alone, which took half
    /// the time of libpng's choice among its five filters per row for 96 px circles (photographic, smooth and flat
    /// ones) at sizes within 2 % of it; higher levels let libpng choose.
    ///
    /// - Throws: `ImageError.encodingFailed`
    package static func png(_ image: Image, compressionLevel: Int? = nil) throws -> Data {
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
    package static func jpeg(_ image: Image, quality: Int = 85) throws -> Data {
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

/// An encoder of one format and its settings: what `ImageEncoder` runs for each of its cases.
///
/// `identifier` names the format and its settings ("png-1", "webp-q80"), so variants encoded differently are
/// stored under different keys.
package protocol ImageEncoding: Sendable {
    /// A stable name of the format and settings.
    var identifier: String { get }
    /// The format written.
    var format: ImageFormat { get }

    /// The encoded bytes of `image`.
    ///
    /// - Throws: `ImageError.encodingFailed`, or `.libraryMissing` for a format loaded at run time.
    func encode(_ image: Image) throws -> Data
}
