import Foundation

/// WebP through libwebp (loaded at run time): lossy at a quality, or lossless; alpha is kept.
///
/// WebP variants of photographic avatars are typically several times smaller than PNG (see the benchmarks).
package struct WebPEncoder: ImageEncoding {
    /// Lossy at a quality (0...100) or lossless.
    package enum Compression: Sendable, Hashable {
        /// VP8 at `quality` 0...100 (75 is libwebp's default), alpha compressed losslessly.
        case lossy(quality: Int)
        /// VP8L: exact pixels.
        case lossless
    }

    /// How the pixels are compressed.
    package var compression: Compression
    private let library: Result<WebPLibrary, ImageError>

    /// Creates an encoder over the installed libwebp.so.7.
    package init(compression: Compression = .lossy(quality: 80)) {
        self.init(compression: compression, library: WebPLibrary.system)
    }

    /// An encoder over a given load (tests pass a bogus soname to simulate a missing library).
    package init(compression: Compression, library: Result<WebPLibrary, ImageError>) {
        self.compression = compression
        self.library = library
    }

    /// "webp-q<quality>" or "webp-lossless".
    package var identifier: String {
        switch compression {
        case .lossy(let quality): return "webp-q\(quality)"
        case .lossless: return "webp-lossless"
        }
    }

    /// `.webp`.
    package var format: ImageFormat { .webp }

    /// The WebP bytes of `image` (un-premultiplied first).
    ///
    /// - Throws: `ImageError.encodingFailed` (a side over WebP's 16383 pixels), `.libraryMissing`.
    package func encode(_ image: Image) throws -> Data {
        let library = try library.get()
        guard image.width <= 16_383, image.height <= 16_383 else {
            throw ImageError.encodingFailed(
                format: .webp, reason: "\(image.width)×\(image.height) exceeds WebP's 16383")
        }
        var straight = image.pixels
        straight.withUnsafeMutableBufferPointer { PixelConversion.unpremultiply($0) }
        var output: UnsafeMutablePointer<UInt8>?
        let width = Int32(image.width)
        let height = Int32(image.height)
        let stride = Int32(image.width * 4)
        let size = straight.withUnsafeBufferPointer { rgba in
            switch compression {
            case .lossy(let quality):
                let clamped = Float(min(100, max(0, quality)))
                return library.encodeRGBA(rgba.baseAddress, width, height, stride, clamped, &output)
            case .lossless:
                return library.encodeLosslessRGBA(rgba.baseAddress, width, height, stride, &output)
            }
        }
        guard size > 0, let output else {
            throw ImageError.encodingFailed(format: .webp, reason: "libwebp returned no bytes")
        }
        defer { library.free(output) }
        return Data(bytes: output, count: size)
    }
}
