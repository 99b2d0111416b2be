/// How a decoder that reads rows in order (PNG, a decoded HEIF plane) reaches display size: an integer box
/// factor that leaves the region of interest at least `targetSize × downsamplingHeadroom`, and the region in
/// the reduced image.
///
/// The reduced image is the source averaged over `factor × factor` blocks (the last row and column of blocks
/// may be partial), `ceil(width / factor) × ceil(height / factor)` pixels; the output is
/// `regionOfInterest.rect(in:)` of it, as a DCT-scaled JPEG's output is the region of its scaled image.
struct DisplaySizePlan: Hashable {
    /// The decoded (stored) size.
    let sourceSize: PixelSize
    /// Source pixels per output pixel along each axis (1: no reduction).
    let factor: Int
    /// What is returned, in the reduced image's pixels.
    let outputRect: PixelRect

    /// Reductions stop at 2048× per side, so block sums of 255 stay inside `UInt32`.
    static let maximumFactor = 2048

    init(sourceSize: PixelSize, options: ImageDecodingOptions) {
        self.sourceSize = sourceSize
        let fullRegion = options.regionOfInterest?.rect(in: sourceSize) ?? PixelRect(wholeOf: sourceSize)
        var factor = 1
        if let target = options.targetSize {
            let needed = JPEGRegionPlan.neededSize(target: target, headroom: options.downsamplingHeadroom)
            let byWidth = fullRegion.width / max(needed.width, 1)
            let byHeight = fullRegion.height / max(needed.height, 1)
            factor = min(max(1, min(byWidth, byHeight)), Self.maximumFactor)
        }
        self.factor = factor
        let reduced = PixelSize(
            width: (sourceSize.width + factor - 1) / factor, height: (sourceSize.height + factor - 1) / factor
        )
        outputRect = options.regionOfInterest?.rect(in: reduced) ?? PixelRect(wholeOf: reduced)
    }

    /// Whether the output is the whole source at full size (nothing to reduce or cut).
    var isWholeSource: Bool { factor == 1 && outputRect == PixelRect(wholeOf: sourceSize) }

    /// The source rows that make the output: `rows.lowerBound ..< rows.upperBound`.
    var sourceRows: Range<Int> {
        (outputRect.y * factor)..<min((outputRect.y + outputRect.height) * factor, sourceSize.height)
    }

    /// The source columns that make the output.
    var sourceColumns: Range<Int> {
        (outputRect.x * factor)..<min((outputRect.x + outputRect.width) * factor, sourceSize.width)
    }
}
