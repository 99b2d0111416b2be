import CDynamicCodecs
import Foundation

/// Decodes HEIC and AVIF (the primary image, with alpha) through libheif, loaded at run time; a missing
/// library throws `ImageError.libraryMissing` naming libheif1.
///
/// libheif applies the file's transforms (irot rotation, imir mirror, clap crop) while decoding, so the result
/// is upright and `ImageHeader` sizes are the displayed ones; the orientation reported is always `.identity`.
public struct HEIFDecoder: ImageDecoding {
    private let library: Result<HEIFLibrary, ImageError>

    /// Creates the decoder over the installed libheif.so.1.
    public init() {
        self.init(library: HEIFLibrary.system)
    }

    /// A decoder over a given load (tests pass a bogus soname to simulate a missing library).
    package init(library: Result<HEIFLibrary, ImageError>) {
        self.library = library
    }

    /// "heif" (HEIC and AVIF).
    public var identifier: String { "heif" }

    /// Whether `data` starts with an `ftyp` box naming HEIC or AVIF.
    public func canDecode(_ data: Data) -> Bool { HEIFBrands.format(of: data) != nil }

    /// The primary image's displayed size and alpha.
    public func header(of data: Data) throws -> ImageHeader {
        let format = HEIFBrands.format(of: data) ?? .heic
        let library = try loaded(format)
        return try HEIFSession(library: library, format: format).withPrimaryImage(data) { handle in
            header(library, handle, format)
        }
    }

    /// Decodes the primary image, upright, into premultiplied RGBA.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let format = HEIFBrands.format(of: data) ?? .heic
        let library = try loaded(format)
        let session = HEIFSession(library: library, format: format)
        return try session.withPrimaryImage(data) { handle in
            let header = header(library, handle, format)
            try ImageDecoder.checkPixelLimit(of: header, options: options)
            return try session.decodeRGBA(handle, hasAlpha: header.hasAlpha)
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

/// One libheif context over borrowed bytes.
private struct HEIFSession {
    let library: HEIFLibrary
    let format: ImageFormat

    func withPrimaryImage<Result>(_ data: Data, _ body: (UnsafeRawPointer) throws -> Result) throws -> Result {
        guard let context = library.contextAlloc() else {
            throw ImageError.outOfMemory(format: format, reason: "could not allocate a libheif context")
        }
        defer { library.contextFree(context) }
        return try data.withUnsafeBytes { bytes in
            try check(library.readFromMemory(context, bytes.baseAddress, bytes.count, nil))
            var handle: UnsafeMutableRawPointer?
            try check(library.primaryHandle(context, &handle))
            guard let handle else { throw ImageError.corrupt(format: format, reason: "the file has no primary image") }
            defer { library.handleRelease(handle) }
            return try body(UnsafeRawPointer(handle))
        }
    }

    func decodeRGBA(_ handle: UnsafeRawPointer, hasAlpha: Bool) throws -> Image {
        var decoded: UnsafeMutableRawPointer?
        try check(
            library.decodeImage(handle, &decoded, MA_HEIF_COLORSPACE_RGB, MA_HEIF_CHROMA_INTERLEAVED_RGBA, nil)
        )
        guard let decoded else { throw ImageError.corrupt(format: format, reason: "libheif returned no image") }
        defer { library.imageRelease(decoded) }
        let width = Int(library.imageWidth(decoded, MA_HEIF_CHANNEL_INTERLEAVED))
        let height = Int(library.imageHeight(decoded, MA_HEIF_CHANNEL_INTERLEAVED))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = library.imagePlane(decoded, MA_HEIF_CHANNEL_INTERLEAVED, &stride),
            Int(stride) >= width * 4
        else { throw ImageError.invalidDimensions(format: format, width: width, height: height) }
        let rowBytes = width * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initializedCount in
            for row in 0..<height {
                let target = UnsafeMutableRawPointer(buffer.baseAddress! + row * rowBytes)
                target.copyMemory(from: plane + row * Int(stride), byteCount: rowBytes)
            }
            initializedCount = rowBytes * height
            if hasAlpha { PixelConversion.premultiply(buffer) }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// heif_error: code 0 is success; sub-error 100 (end of data) means the file was cut.
    private func check(_ error: ma_heif_error) throws {
        guard error.code != 0 else { return }
        let reason = error.message.map { String(cString: $0) } ?? "libheif error \(error.code)"
        switch (error.code, error.subcode) {
        case (_, 100): throw ImageError.truncated(format: format, reason: reason)
        case (3, _), (4, _): throw ImageError.unsupported(format: format, reason: reason)
        case (6, _): throw ImageError.outOfMemory(format: format, reason: reason)
        default: throw ImageError.corrupt(format: format, reason: reason)
        }
    }
}
