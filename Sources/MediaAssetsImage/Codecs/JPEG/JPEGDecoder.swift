import Foundation

/// Decodes JPEG through the linked libjpeg-turbo: DCT downscaling toward `targetSize` (with
/// `downsamplingHeadroom`), only the `regionOfInterest`, EXIF orientation; a progressive file at a reduced scale
/// reads only the scans that scale shows. Previews of progressive files while they download come from
/// `makeIncrementalDecoder(options:)`.
package struct JPEGDecoder: ImageDecoding, Hashable {
    /// "jpeg".
    package var identifier: String { ImageFormat.jpeg.rawValue }

    /// Whether a progressive file decoded at a reduced scale reads only the scans that scale shows (the output
    /// is the same either way; benchmarks compare the two).
    package var skipsUnneededScans = true

    /// Creates the decoder.
    package init() {}

    /// `true`: only the region of interest is decoded.
    package var decodesRegions: Bool { true }

    /// Whether `data` starts with `FF D8 FF`.
    package func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .jpeg }

    /// The SOF size, EXIF orientation; never alpha.
    package func header(of data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { try ImageDecoder.jpegHeader($0) }
    }

    /// Previews of a progressive JPEG as it downloads (libjpeg-turbo's buffered-image mode), at the size and
    /// region the final decode with `options` has; see `IncrementalImageDecoding`. A baseline file gives none.
    package func makeIncrementalDecoder(options: ImageDecodingOptions) -> (any IncrementalImageDecoding)? {
        try? JPEGIncrementalDecoder(options: options)
    }

    /// Decodes, upright, downscaled toward `options.targetSize` and cut to `options.regionOfInterest` when set.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes {
            try ImageDecoder.decodeJPEG($0, options: options, skipsUnneededScans: skipsUnneededScans)
        }
    }
}
