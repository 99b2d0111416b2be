import CDynamicCodecs
import Foundation

/// Decodes HEIC and AVIF (the primary image, with alpha) through libheif, loaded at run time; a missing
/// library throws `ImageError.libraryMissing` naming libheif1.
///
/// libheif applies the file's transforms (irot rotation, imir mirror, clap crop) while decoding, so the result
/// is upright and `ImageHeader` sizes are the displayed ones; the orientation reported is always `.identity`.
package struct HEIFDecoder: ImageDecoding {
    private let library: Result<HEIFLibrary, ImageError>

    /// Creates the decoder over the installed libheif.so.1.
    package init() {
        self.init(library: HEIFLibrary.system)
    }

    /// A decoder over a given load (tests pass a bogus soname to simulate a missing library).
    package init(library: Result<HEIFLibrary, ImageError>) {
        self.library = library
    }

    /// "heif" (HEIC and AVIF).
    package var identifier: String { "heif" }

    /// Whether `data` starts with an `ftyp` box naming HEIC or AVIF.
    package func canDecode(_ data: Data) -> Bool { HEIFBrands.format(of: data) != nil }

    /// The primary image's displayed size and alpha.
    package func header(of data: Data) throws -> ImageHeader {
        let format = HEIFBrands.format(of: data) ?? .heic
        let library = try loaded(format)
        return try HEIFSession(library: library, format: format).withPrimaryImage(data) { handle in
            header(library, handle, format)
        }
    }

    /// `true`: the region of interest is cut while the decoded plane is reduced.
    package var decodesRegions: Bool { true }

    /// Decodes the primary image, upright, into premultiplied RGBA at display size.
    ///
    /// With a `targetSize`, the smallest embedded thumbnail (as cameras and phones write them, typically
    /// 320×240) whose region of interest still covers `targetSize × downsamplingHeadroom` is decoded instead
    /// of the primary image. Otherwise libheif decodes the whole primary image (libheif 1.15 has no scaled or
    /// partial decoding): its YCbCr planes and their RGB conversion, about 4.5 bytes a pixel, are held while
    /// the result is box-reduced from them row by row.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let format = HEIFBrands.format(of: data) ?? .heic
        let library = try loaded(format)
        if let reason = HEIFBrands.truncation(of: data) { throw ImageError.truncated(format: format, reason: reason) }
        let session = HEIFSession(library: library, format: format)
        return try session.withPrimaryImage(data, maxPixelCount: options.maxPixelCount) { handle in
            let header = header(library, handle, format)
            try ImageDecoder.checkPixelLimit(of: header, options: options)
            if options.targetSize != nil, let thumbnail = try session.thumbnail(of: handle, covering: options) {
                defer { library.handleRelease(thumbnail) }
                return try session.decode(thumbnail, hasAlpha: library.handleHasAlpha(thumbnail) != 0, options: options)
            }
            return try session.decode(handle, hasAlpha: header.hasAlpha, options: options)
        }
    }

    private func loaded(_ format: ImageFormat) throws -> HEIFLibrary {
        do {
            return try library.get()
        } catch let ImageError.libraryMissing(_, name, package, reason) {
            throw ImageError.libraryMissing(format: format, library: name, debianPackage: package, reason: reason)
        }
    }

    private func header(_ library: HEIFLibrary, _ handle: UnsafeRawPointer, _ format: ImageFormat) -> ImageHeader {
        ImageHeader(
            format: format, width: Int(library.handleWidth(handle)), height: Int(library.handleHeight(handle)),
            orientation: .identity, hasAlpha: library.handleHasAlpha(handle) != 0
        )
    }
}
