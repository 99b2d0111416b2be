import Foundation

/// PNG through libpng: lossless, RGBA when any pixel is transparent.
package struct PNGEncoder: ImageEncoding, Hashable {
    /// The zlib level 0...9, or `nil` for libpng's default (6).
    package var compressionLevel: Int?

    /// Creates an encoder at `compressionLevel`.
    package init(compressionLevel: Int? = nil) { self.compressionLevel = compressionLevel }

    /// "png" or "png-<level>".
    package var identifier: String { compressionLevel.map { "png-\($0)" } ?? "png" }
    /// `.png`.
    package var format: ImageFormat { .png }

    /// PNG bytes for `image`: 8-bit RGBA when any pixel is transparent, else 8-bit RGB (smaller).
    ///
    /// Pixels are un-premultiplied first; decoding the bytes gives back the same pixels. The level is zlib's
    /// (0...9, clamped; `nil` keeps libpng's default, 6). Small variants encode 3–4× faster at level 1 for about
    /// 20 % more bytes. Levels up to 3 filter every row with Sub alone, which took half the time of libpng's
    /// choice among its five filters per row for 96 px circles at sizes within 2 % of it; higher levels let
    /// libpng choose.
    ///
    /// - Throws: `ImageError.encodingFailed`
    package func encode(_ image: Image) throws -> Data {
        try ImageEncoder.png(image, compressionLevel: compressionLevel)
    }
}

/// JPEG through libjpeg-turbo at a quality; transparency is composited over black.
package struct JPEGEncoder: ImageEncoding, Hashable {
    /// 1...100.
    package var quality: Int

    /// Creates an encoder at `quality`.
    package init(quality: Int = 85) { self.quality = quality }

    /// "jpeg-q<quality>".
    package var identifier: String { "jpeg-q\(quality)" }
    /// `.jpeg`.
    package var format: ImageFormat { .jpeg }

    /// JPEG bytes for `image` at `quality` (clamped to 1...100; 85 is a good default for photos).
    ///
    /// JPEG has no alpha: transparent areas are written as their premultiplied colour, which is the image
    /// composited over black. Encode images with transparency as PNG (`Image.hasTransparency`).
    /// Baseline, 4:2:0 chroma subsampling, libjpeg-turbo's accurate DCT.
    ///
    /// - Throws: `ImageError.encodingFailed`, for example when a side is longer than JPEG's 65500 pixels.
    package func encode(_ image: Image) throws -> Data {
        try ImageEncoder.jpeg(image, quality: quality)
    }
}
