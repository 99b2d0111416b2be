import CDynamicCodecs
import Foundation

/// Encodes HEIC and AVIF fixtures for tests and benchmarks through libheif (x265 and libaom, which libheif1
/// depends on), with the orientation boxes and thumbnails cameras write.
package enum HEIFFixtureEncoder {
    /// `image` encoded as HEIC (`compression` HEVC) or AVIF (AV1) at quality 90 (or lossless), with `orientation`
    /// written as irot/imir boxes.
    ///
    /// With a `thumbnail` (a reduced copy of `image`, as a camera's scaler makes its 320×240 one), it is encoded
    /// too and referenced as the primary image's thumbnail (`heif_context_assign_thumbnail`, a `thmb`
    /// reference). `fast` asks x265 for its "ultrafast" preset, for large fixtures.
    ///
    /// - Throws: `ImageError`
    package static func encode(
        _ image: Image, compression: Int32 = MA_HEIF_COMPRESSION_HEVC, lossless: Bool = false,
        orientation: ImageOrientation = .identity, thumbnail: Image? = nil, fast: Bool = false
    ) throws -> Data {
        let settings = HEIFWriter.Settings(
            compression: compression, quality: lossless ? nil : 90, orientation: orientation, fast: fast)
        guard let thumbnail else { return try HEIFWriter.encode(image, settings: settings) }
        // libheif 1.15's heif_context_assign_thumbnail hands its two handles to the C++ method the other way
        // round (the `thmb` reference then runs from the primary image to the thumbnail); the handles are
        // passed in the order that writes it right, and the other order is tried if a later libheif fixed it.
        for handlesSwapped in [true, false] {
            let data = try HEIFWriter.encode(image, settings: settings, thumbnail: (thumbnail, handlesSwapped))
            if (try? thumbnailCount(of: data)) == 1 { return data }
        }
        throw ImageError.encodingFailed(format: settings.format, reason: "libheif wrote no thumbnail reference")
    }

    /// How many thumbnails the primary image of `data` has, read back through libheif.
    private static func thumbnailCount(of data: Data) throws -> Int {
        let library = try HEIFLibrary.system.get()
        return try HEIFSession(library: library, format: .heic).withPrimaryImage(data) { handle in
            Int(library.thumbnailCount(handle))
        }
    }
}
