import Foundation

/// Precomputed Lanczos3 weights for one axis: for each output pixel, the first input pixel it reads
/// and `count` coefficients that sum to exactly 1 (multiples of 2^-16, so the sum is exact in `Float`).
///
/// Reductions stretch the kernel by the scale (so it low-passes before sampling: no aliasing);
/// enlargements use it as is. Taps outside the image are dropped and the rest renormalised.
struct ResamplingWeights {
    /// Weights are quantized to multiples of `1 / one`: exact sums, and exact zeros to trim.
    static let one: Int32 = 1 << 16
    /// Lanczos3 reaches three input pixels (at scale 1) on each side.
    static let support = 3.0

    let outputSize: Int
    /// Coefficients per output pixel in `coefficients` (the stride; `counts` says how many are used).
    let stride: Int
    private(set) var starts: [Int]
    private(set) var counts: [Int]
    private(set) var coefficients: [Float]

    /// Maps `[origin, origin + extent)` of an axis of `inputSize` pixels onto `outputSize` pixels.
    init(inputSize: Int, origin: Double, extent: Double, outputSize: Int) {
        let scale = extent / Double(outputSize)
        let filterScale = max(scale, 1)
        let support = Self.support * filterScale
        let stride = Int((2 * support).rounded(.up)) + 2
        self.outputSize = outputSize
        self.stride = stride
        starts = [Int](repeating: 0, count: outputSize)
        counts = [Int](repeating: 0, count: outputSize)
        coefficients = [Float](repeating: 0, count: outputSize * stride)
        var weights = [Double](repeating: 0, count: stride)
        for outputIndex in 0..<outputSize {
            let center = origin + (Double(outputIndex) + 0.5) * scale
            var first = max(Int((center - support + 0.5).rounded(.down)), 0)
            var end = min(Int((center + support + 0.5).rounded(.down)), inputSize, first + stride)
            if end <= first {
                first = min(max(Int(center.rounded(.down)), 0), inputSize - 1)
                end = first + 1
            }
            let sum = Self.lanczos3(
                from: (Double(first) - center + 0.5) / filterScale, step: 1 / filterScale,
                count: end - first, into: &weights
            )
            // Cannot happen while the centre lies in the image (the main lobe dominates); if it
            // ever did, take the nearest pixel rather than divide by almost nothing.
            let degenerate = !(abs(sum) >= 1e-3)
            if degenerate {
                let nearest = min(max(Int(center.rounded(.down)) - first, 0), end - first - 1)
                for tap in 0..<(end - first) { weights[tap] = tap == nearest ? 1 : 0 }
            }
            store(weights: weights, count: end - first, sum: degenerate ? 1 : sum, first: first, at: outputIndex)
        }
    }

    /// Quantizes, fixes the rounding residue on the largest tap, and trims zero taps at both ends.
    private mutating func store(weights: [Double], count: Int, sum: Double, first: Int, at outputIndex: Int) {
        var quantized = [Int32](repeating: 0, count: count)
        var total: Int32 = 0
        var largest = 0
        for tap in 0..<count {
            quantized[tap] = Int32((weights[tap] / sum * Double(Self.one)).rounded())
            total += quantized[tap]
            if quantized[tap] > quantized[largest] { largest = tap }
        }
        quantized[largest] += Self.one - total
        var lower = 0
        var upper = count
        while upper - lower > 1, quantized[lower] == 0 { lower += 1 }
        while upper - lower > 1, quantized[upper - 1] == 0 { upper -= 1 }
        let base = outputIndex * stride
        for tap in lower..<upper {
            coefficients[base + tap - lower] = Float(quantized[tap]) / Float(Self.one)
        }
        starts[outputIndex] = first + lower
        counts[outputIndex] = upper - lower
    }

    /// The input pixels `[lowerBound, upperBound)` that any output pixel reads.
    var inputRange: Range<Int> {
        guard outputSize > 0 else { return 0..<0 }
        var lower = Int.max
        var upper = 0
        for index in 0..<outputSize {
            lower = min(lower, starts[index])
            upper = max(upper, starts[index] + counts[index])
        }
        return lower..<upper
    }

    /// How many consecutive input rows a streaming pass must keep so that, after computing every
    /// row up to the furthest one read so far, each output still finds all of its taps.
    var rowsInReach: Int {
        var furthestEnd = 0
        var reach = 1
        for index in 0..<outputSize {
            furthestEnd = max(furthestEnd, starts[index] + counts[index])
            reach = max(reach, furthestEnd - starts[index])
        }
        return reach
    }

    /// Fills `weights[0..<count]` with Lanczos3 at `start`, `start + step`, …, and returns their sum.
    ///
    /// The sines advance by rotation (angle addition) rather than a `sin` call per tap.
    static func lanczos3(from start: Double, step: Double, count: Int, into weights: inout [Double]) -> Double {
        var sinOuter = sin(Double.pi * start)
        var cosOuter = cos(Double.pi * start)
        var sinInner = sin(Double.pi * start / support)
        var cosInner = cos(Double.pi * start / support)
        let sinOuterStep = sin(Double.pi * step), cosOuterStep = cos(Double.pi * step)
        let sinInnerStep = sin(Double.pi * step / support), cosInnerStep = cos(Double.pi * step / support)
        var sum = 0.0
        for tap in 0..<count {
            let x = start + Double(tap) * step
            let weight: Double
            if abs(x) < 1e-9 {
                weight = 1
            } else if abs(x) >= support {
                weight = 0
            } else {
                weight = support * sinOuter * sinInner / (Double.pi * Double.pi * x * x)
            }
            weights[tap] = weight
            sum += weight
            (sinOuter, cosOuter) = (
                sinOuter * cosOuterStep + cosOuter * sinOuterStep,
                cosOuter * cosOuterStep - sinOuter * sinOuterStep
            )
            (sinInner, cosInner) = (
                sinInner * cosInnerStep + cosInner * sinInnerStep,
                cosInner * cosInnerStep - sinInner * sinInnerStep
            )
        }
        return sum
    }
}
