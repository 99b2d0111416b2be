import Foundation

/// A decoder plugin: recognises its format by magic bytes and decodes it into premultiplied RGBA.
///
/// Register one on `ImageCodecRegistry` (owned by `ImageUtil.Configuration.codecs`) to teach `ImageUtil` a
/// format. The registry asks each decoder in turn whether it `canDecode(_:)` the first bytes.
///
/// Implementation requirements:
/// - `canDecode(_:)` looks at magic bytes only, never at a URL or content type, and is cheap.
/// - `identifier` is stable across releases: the pipeline keys decoded images by it and the options.
/// - Read the header first and refuse, before allocating pixels, an image over
///   `ImageDecodingOptions.maxPixelCount` (`ImageError.tooManyPixels`); an animation over `maxFrameCount` or
///   `maxAnimationPixelCount` likewise.
/// - Bad input throws `ImageError` (or the decoder's own error) and never crashes.
public protocol ImageDecoding: Sendable {
    /// A stable name, part of the key of what this decoder produces ("jpeg", "webp", "heif").
    var identifier: String { get }

    /// Whether `data` starts with this decoder's magic bytes.
    func canDecode(_ data: Data) -> Bool

    /// Reads only the header: format, stored size, orientation, alpha.
    ///
    /// - Throws: `ImageError` (never `.tooManyPixels`: the header of a huge image is readable).
    func header(of data: Data) throws -> ImageHeader

    /// Decodes the image (the first frame of an animation), upright unless the options say otherwise.
    ///
    /// - Throws: `ImageError`
    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image

    /// Decodes every frame with its duration and the loop count; a still image is one frame.
    ///
    /// - Throws: `ImageError`, including `.tooManyFrames` and `.animationTooLarge` before frames are decoded.
    func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage

    /// Whether `decode(_:options:)` itself returns only `options.regionOfInterest` (JPEG does). When `false`,
    /// the default, `ImageCodecRegistry` cuts the region out of the whole decoded image.
    var decodesRegions: Bool { get }

    /// A decoder of previews for one download of this format, or `nil` (the default) when it has none.
    func makeIncrementalDecoder(options: ImageDecodingOptions) -> (any IncrementalImageDecoding)?
}

extension ImageDecoding {
    /// The registry cuts the region of interest out of the whole image.
    public var decodesRegions: Bool { false }

    /// A still image as a one-frame animation.
    public func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        AnimatedImage(still: try decode(data, options: options))
    }
}

/// Decodes previews of one image while its bytes are still arriving (a progressive JPEG's first scans).
///
/// Made per download by `ImageDecoding.makeIncrementalDecoder(options:)`; fed the body's pieces in order.
/// A preview is never the final image: the final image is decoded from the whole body as usual, and a
/// preview is never stored.
///
/// Implementation requirements:
/// - `append(_:)` keeps what it needs between calls, so a download of n pieces costs about one decode of
///   the image, not n; memory stays bounded by the options (pixel limit, target size), as a full decode's.
/// - Bad or truncated input never crashes: a piece that makes the stream undecodable throws `ImageError`,
///   after which the caller stops feeding it.
public protocol IncrementalImageDecoding: AnyObject {
    /// Takes the next piece of the body; returns a new preview when the bytes so far complete more of the
    /// image than the last preview showed, else `nil`.
    ///
    /// - Throws: `ImageError` when the bytes cannot be an image this decoder previews.
    func append(_ data: Data) throws -> Image?
}

extension ImageDecoding {
    /// No previews: the image appears when its bytes are all in.
    public func makeIncrementalDecoder(options: ImageDecodingOptions) -> (any IncrementalImageDecoding)? { nil }
}

extension ImageCodecRegistry {
    /// An incremental decoder for the image whose first bytes are `leadingBytes`, when its decoder previews
    /// (see `IncrementalImageDecoding`); `nil` when the format has no previews or is not known yet.
    package func makeIncrementalDecoder(
        leadingBytes: Data, options: ImageDecodingOptions
    ) -> (any IncrementalImageDecoding)? {
        decoders.first { $0.canDecode(leadingBytes) }?.makeIncrementalDecoder(options: options)
    }
}
