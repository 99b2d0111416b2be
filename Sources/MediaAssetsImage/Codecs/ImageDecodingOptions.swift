/// How decoders decode: pixel and animation limits, an optional size to downsample toward, orientation.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// The most pixels (`width * height` from the header) a file may claim. Checked before any pixel memory
    /// is allocated, so a small file claiming 100000×100000 is refused at once. Default: 100 million.
    public var maxPixelCount: Int
    /// The smallest upright size the caller needs, or `nil` for full size.
    ///
    /// JPEG decodes at the smallest DCT scale (1/8, 2/8, … 8/8) whose output is still at least this size in
    /// both dimensions (Pillow's "draft" rule), which is several times faster than a full decode; a processor
    /// then finishes the resize. PNG always decodes at full size.
    public var targetSize: PixelSize?
    /// Whether the EXIF orientation (HEIF: irot/imir) is applied so the result is upright. Default: `true`.
    ///
    /// libheif always applies HEIF's transforms, so this acts on JPEG only.
    public var appliesOrientation: Bool
    /// The most frames an animation may have; refused (`ImageError.tooManyFrames`) as soon as a frame over
    /// the limit is seen, before it is decoded. This bounds the decoded frames kept in memory. Default: 1000.
    public var maxFrameCount: Int
    /// The most pixels all decoded frames of an animation may hold together (frames × canvas), checked before
    /// each frame is allocated. Default: 100 million (400 MB of RGBA).
    public var maxAnimationPixelCount: Int

    /// Creates options.
    public init(
        maxPixelCount: Int = 100_000_000, targetSize: PixelSize? = nil, appliesOrientation: Bool = true,
        maxFrameCount: Int = 1000, maxAnimationPixelCount: Int = 100_000_000
    ) {
        self.maxPixelCount = maxPixelCount
        self.targetSize = targetSize
        self.appliesOrientation = appliesOrientation
        self.maxFrameCount = maxFrameCount
        self.maxAnimationPixelCount = maxAnimationPixelCount
    }
}
