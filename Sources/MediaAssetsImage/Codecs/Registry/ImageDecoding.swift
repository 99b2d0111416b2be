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
