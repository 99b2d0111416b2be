import Foundation

/// Decodes PNG through the linked libpng into premultiplied RGBA, at display size: rows are read one at a time
/// and box-reduced toward `targetSize` (with `downsamplingHeadroom`), keeping only `regionOfInterest`.
package struct PNGDecoder: ImageDecoding, Hashable {
    /// "png".
    package var identifier: String { ImageFormat.png.rawValue }

    /// Creates the decoder.
    package init() {}

    /// Whether `data` starts with PNG's eight-byte signature.
    package func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .png }

    /// The IHDR size and whether the image has alpha (an alpha channel or tRNS).
    package func header(of data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { try ImageDecoder.pngHeader($0) }
    }

    /// `true`: only the region of interest is kept, row by row.
    package var decodesRegions: Bool { true }

    /// Decodes toward `options.targetSize`, cut to `options.regionOfInterest` (APNG's extra frames are ignored:
    /// libpng reads the default image). Peak memory is the output plus a few rows, except for an interlaced file,
    /// which is decoded whole (4 bytes a pixel) before it is reduced.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { try ImageDecoder.decodePNG($0, options: options) }
    }
}
