/// Resamples premultiplied RGBA8 images: an exact area average (box) for the bulk of a large
/// reduction, then a separable Lanczos3 pass to the final size.
///
/// The box stage (an integer factor per axis) stops at 2× to 4× the target (a reducing gap of 2),
/// so the windowed filter makes at least the last 2× itself: a box alone lets through, and
/// folds back, much of what lies above the final Nyquist frequency (soft yet moiréd detail), while a
/// 10 MP reduction still costs about one add per source byte and at most ~26 filter taps per output.
/// Box rows are produced on demand for the horizontal pass, so the reduced image is never stored.
/// Intermediate results stay in `Float`; only the output is rounded, clamped to 0...255 and each
/// colour channel to its alpha, so Lanczos overshoot (ringing) cannot break premultiplication.
///
/// Averaging happens on the stored (sRGB-encoded) values, not on linear light, as the platforms' own image
/// scalers do.
enum Resampler {
    /// The largest box factor per pass: keeps `255 × factorX × factorY` inside `Int32` block sums.
    static let maximumBoxFactor = 2048

    /// Returns `region` of `image` resampled to exactly `size`.
    ///
    /// - Precondition: `region` lies inside the image and has a positive extent (callers compute it).
    static func resample(
        _ image: Image, region: SourceRegion, to size: PixelSize, boxStage: ResamplingBoxStage = .reducingGapOfTwo
    ) -> Image {
        var source = image
        var region = region
        while true {
            let factorX = boxFactor(extent: region.width, output: size.width, stage: boxStage)
            let factorY = boxFactor(extent: region.height, output: size.height, stage: boxStage)
            if factorX == 1 && factorY == 1 {
                return convolve(rowsOf: source, region: region, to: size)
            }
            let box = BoxReduction(
                imageWidth: source.width, imageHeight: source.height, region: region,
                factorX: factorX, factorY: factorY
            )
            let nextX = boxFactor(extent: box.reducedRegion.width, output: size.width, stage: boxStage)
            let nextY = boxFactor(extent: box.reducedRegion.height, output: size.height, stage: boxStage)
            if nextX == 1 && nextY == 1 {
                return box.fitsSixteenBitSums
                    ? convolve(box, of: source, to: size, sumType: UInt16.self)
                    : convolve(box, of: source, to: size, sumType: UInt32.self)
            }
            // Only reductions beyond 4096× on a side take another (rounded) box pass.
            source = box.reduce(source)
            region = box.reducedRegion
        }
    }

    /// The largest integer box factor that still leaves the Lanczos pass at least a 2× reduction (1: no
    /// box stage below 4×), so that pass reads at most ~26 taps per pixel.
    static func boxFactor(extent: Double, output: Int, stage: ResamplingBoxStage = .reducingGapOfTwo) -> Int {
        let ratio = extent / Double(output)
        switch stage {
        case .reducingGapOfTwo:
            guard ratio >= 4 else { return 1 }
            return min(Int(ratio / 2), maximumBoxFactor)
        case .belowTwice:
            guard ratio >= 2 else { return 1 }
            return min(Int(ratio / 2) + 1, maximumBoxFactor)
        }
    }
}

/// How far the box stage of a reduction goes before Lanczos3 takes over.
package enum ResamplingBoxStage: Sendable, Hashable {
    /// To 2×–4× the target: Lanczos3 makes at least the last 2× (the default).
    case reducingGapOfTwo
    /// To less than 2× the target, an exact 2× or 3× being a pure box: the rule before issue 16, kept so the
    /// avatar benchmark can compare against it.
    case belowTwice
}

/// A rectangle in source pixel coordinates, fractional so that a centre crop maps exactly.
struct SourceRegion: Hashable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    /// The whole of `image`.
    init(wholeOf image: Image) {
        self.init(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
    }

    init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
