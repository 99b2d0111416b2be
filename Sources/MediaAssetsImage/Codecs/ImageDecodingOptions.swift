/// How decoders decode: pixel and animation limits, an optional size to downsample toward, orientation.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// The most pixels (`width * height` from the header) a file may claim. Checked before any pixel memory
    /// is allocated, so a small file claiming 100000×100000 is refused at once. Default: 100 million.
    public var maxPixelCount: Int
    /// The smallest upright size the caller needs (of `regionOfInterest` when set), or `nil` for full size.
    ///
    /// Every still format decodes toward it, never below `targetSize × downsamplingHeadroom` in both dimensions
    /// (when the file is that large), and a processor then finishes the resize:
    /// - JPEG at the smallest DCT scale (1/8, 2/8, … 8/8) that reaches it, several times faster than a full
    ///   decode; a progressive file reads only the scans that scale shows.
    /// - WebP through libwebp's own scaling, to just that size.
    /// - PNG row by row into a box reduction by the largest whole factor that reaches it, so memory is the
    ///   output plus a row (an interlaced file is decoded whole first: 4 bytes a pixel).
    /// - HEIC and AVIF from the smallest embedded thumbnail that reaches it, else the whole primary image is
    ///   decoded by libheif (about 4.5 bytes a pixel while it is reduced).
    ///
    /// GIF and animated WebP composite each frame on the full canvas and resample it (box, then Lanczos3) to
    /// the smallest size covering `targetSize`, so only the canvas is ever held at the file's size.
    public var targetSize: PixelSize?
    /// How many times `targetSize` a display-size decode must reach, when the file is that large. Default: 2.
    ///
    /// libjpeg's reduced inverse DCTs alias: an image decoded just down to the target (1, the
    /// fastest) is visibly soft and 8–10 dB further from a full-resolution Lanczos reduction than
    /// one decoded at twice the target and then resampled with a proper filter. Values below 1 act as 1.
    public var downsamplingHeadroom: Double
    /// The part of the upright image the caller needs, or `nil` for all of it.
    ///
    /// When set, decoding a still image returns `regionOfInterest.rect(in:)` of the upright image at the
    /// decoded size. JPEG decodes only that part (libjpeg-turbo's `jpeg_crop_scanline` and
    /// `jpeg_skip_scanlines`), WebP crops it in libwebp (its origin on even pixels), PNG, HEIC and AVIF keep
    /// only its rows and columns while they reduce; the registry cuts it out of the whole image for decoders
    /// that cannot (`ImageDecoding.decodesRegions`). Processors name it through
    /// `ImageProcessing.regionOfInterest`.
    public var regionOfInterest: ImageRegion?
    /// Whether the EXIF orientation (HEIF: irot/imir) is applied so the result is upright. Default: `true`.
    ///
    /// libheif always applies HEIF's transforms, so this acts on JPEG only.
    public var appliesOrientation: Bool
    /// The most frames an animation decoded whole (`AnimatedImage`) may have; refused
    /// (`ImageError.tooManyFrames`) from the headers, before any frame is decoded. This bounds the decoded
    /// frames kept in memory; `AnimationFrames`, which keeps a window, ignores it. Default: 1000.
    public var maxFrameCount: Int
    /// The most pixels all frames of an animation decoded whole may hold together (frames × the size they are
    /// kept at: the canvas, or less with a `targetSize`), checked from the headers before any frame is
    /// decoded. Default: 100 million (400 MB of RGBA).
    public var maxAnimationPixelCount: Int

    /// Creates options.
    public init(
        maxPixelCount: Int = 100_000_000, targetSize: PixelSize? = nil, appliesOrientation: Bool = true,
        maxFrameCount: Int = 1000, maxAnimationPixelCount: Int = 100_000_000,
        downsamplingHeadroom: Double = 2, regionOfInterest: ImageRegion? = nil
    ) {
        self.maxPixelCount = maxPixelCount
        self.targetSize = targetSize
        self.downsamplingHeadroom = downsamplingHeadroom
        self.regionOfInterest = regionOfInterest
        self.appliesOrientation = appliesOrientation
        self.maxFrameCount = maxFrameCount
        self.maxAnimationPixelCount = maxAnimationPixelCount
    }
}
