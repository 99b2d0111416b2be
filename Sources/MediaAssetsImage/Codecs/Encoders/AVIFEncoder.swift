import CDynamicCodecs
import Foundation

/// AVIF (AV1 in HEIF) through libheif, loaded at run time: where the installed libheif has an AV1 encoder
/// plugin (`isAvailable`). Debian 12's libheif1 1.15.1 encodes AV1 through libaom 3.6; a libheif built without an
/// AV1 encoder throws `ImageError.unsupported` naming the library.
///
/// AVIF is typically 20–30 % smaller than WebP at the same quality, and several times slower to encode: AV1
/// encoders spend tens of milliseconds on a 96 px avatar. Alpha is kept.
package struct AVIFEncoder: ImageEncoding, Hashable {
    /// 0...100 (libheif's scale; 50–60 looks like JPEG at 85), or `nil` for lossless.
    package var quality: Int?

    /// Creates an encoder at `quality` (clamped to 0...100), or lossless when `nil`.
    package init(quality: Int? = 60) {
        self.quality = quality.map { min(100, max(0, $0)) }
    }

    /// "avif-q<quality>" or "avif-lossless".
    package var identifier: String { quality.map { "avif-q\($0)" } ?? "avif-lossless" }
    /// `.avif`.
    package var format: ImageFormat { .avif }

    /// Whether this system can encode AVIF: libheif loads and has an AV1 encoder plugin.
    package static var isAvailable: Bool { availability == nil }

    /// Why this system cannot encode AVIF (`ImageError.libraryMissing` or `.unsupported`), or `nil` when it can.
    package static let availability: ImageError? = {
        do {
            _ = try HEIFWriter.loadedLibrary(encoding: MA_HEIF_COMPRESSION_AV1)
            return nil
        } catch let error as ImageError {
            return error
        } catch {
            return .unsupported(format: .avif, reason: "\(error)")
        }
    }()

    /// The AVIF bytes of `image`.
    ///
    /// - Throws: `ImageError.libraryMissing` (no libheif), `.unsupported` (no AV1 encoder), `.encodingFailed`.
    package func encode(_ image: Image) throws -> Data {
        if let unavailable = Self.availability { throw unavailable }
        return try HEIFWriter.encode(
            image, settings: HEIFWriter.Settings(compression: MA_HEIF_COMPRESSION_AV1, quality: quality))
    }
}
