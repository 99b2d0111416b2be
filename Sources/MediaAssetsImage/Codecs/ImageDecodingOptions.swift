/// How `ImageDecoder` decodes: a pixel limit, an optional size to downsample toward, orientation.
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
    /// Whether the EXIF orientation is applied so the result is upright. Default: `true`.
    public var appliesOrientation: Bool

    /// Creates options.
    public init(maxPixelCount: Int = 100_000_000, targetSize: PixelSize? = nil, appliesOrientation: Bool = true) {
        self.maxPixelCount = maxPixelCount
        self.targetSize = targetSize
        self.appliesOrientation = appliesOrientation
    }
}
