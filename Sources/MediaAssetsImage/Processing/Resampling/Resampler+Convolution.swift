extension Resampler {
    /// Lanczos3 over the rows of a byte image (converted a row at a time).
    static func convolve(rowsOf image: Image, region: SourceRegion, to size: PixelSize) -> Image {
        let horizontal = ResamplingWeights(
            inputSize: image.width, origin: region.x, extent: region.width, outputSize: size.width
        )
        let vertical = ResamplingWeights(
            inputSize: image.height, origin: region.y, extent: region.height, outputSize: size.height
        )
        let rowSamples = image.width * 4
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: rowSamples)
        defer { scratch.deallocate() }
        let columns = horizontal.inputRange
        return image.pixels.withUnsafeBufferPointer { pixels in
            separableConvolution(horizontal: horizontal, vertical: vertical) { row in
                let source = pixels.baseAddress.unsafelyUnwrapped + row * rowSamples
                for index in (columns.lowerBound * 4)..<(columns.upperBound * 4) {
                    scratch[index] = Float(source[index])
                }
                return UnsafePointer(scratch)
            }
        }
    }

    /// Lanczos3 over the rows of a box reduction of `image`, each row averaged when first needed.
    static func convolve<Sum: FixedWidthInteger & UnsignedInteger & SIMDScalar>(
        _ box: BoxReduction, of image: Image, to size: PixelSize, sumType: Sum.Type
    ) -> Image {
        let region = box.reducedRegion
        let horizontal = ResamplingWeights(
            inputSize: box.outputWidth, origin: region.x, extent: region.width, outputSize: size.width
        )
        let vertical = ResamplingWeights(
            inputSize: box.outputHeight, origin: region.y, extent: region.height, outputSize: size.height
        )
        let columnSums = UnsafeMutablePointer<Sum>.allocate(capacity: (box.right - box.left) * 4)
        defer { columnSums.deallocate() }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: box.outputWidth * 4)
        defer { scratch.deallocate() }
        return image.pixels.withUnsafeBufferPointer { pixels in
            separableConvolution(horizontal: horizontal, vertical: vertical) { row in
                box.row(
                    row, pixels: pixels.baseAddress.unsafelyUnwrapped, imageWidth: image.width,
                    columnSums: columnSums, into: scratch
                )
                return UnsafePointer(scratch)
            }
        }
    }

    /// Filters input rows horizontally as the vertical pass first needs them, keeping only a ring
    /// of the rows still in reach (memory O(taps × width), and the ring stays in cache), then
    /// filters vertically and rounds to bytes.
    ///
    /// - Parameter row: the input row `y` as floats (valid until the next call); called once per
    ///   row, in increasing order.
    private static func separableConvolution(
        horizontal: ResamplingWeights, vertical: ResamplingWeights, row: (Int) -> UnsafePointer<Float>
    ) -> Image {
        let outputWidth = horizontal.outputSize
        let outputHeight = vertical.outputSize
        let rowSamples = outputWidth * 4
        let ringRows = vertical.rowsInReach
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringRows * rowSamples)
        defer { ring.deallocate() }
        let accumulators = UnsafeMutablePointer<Float>.allocate(capacity: rowSamples)
        defer { accumulators.deallocate() }
        var nextRow = vertical.inputRange.lowerBound
        let count = rowSamples * outputHeight
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            vertical.coefficients.withUnsafeBufferPointer { coefficients in
                guard let outputBase = output.baseAddress, let coefficientBase = coefficients.baseAddress else {
                    return
                }
                for outputY in 0..<outputHeight {
                    let firstTapRow = vertical.starts[outputY]
                    let taps = vertical.counts[outputY]
                    while nextRow < firstTapRow + taps {
                        filterRow(row(nextRow), weights: horizontal, into: ring + (nextRow % ringRows) * rowSamples)
                        nextRow += 1
                    }
                    accumulators.update(repeating: 0, count: rowSamples)
                    let weights = coefficientBase + outputY * vertical.stride
                    for tap in 0..<taps {
                        let weight = weights[tap]
                        let source = ring + ((firstTapRow + tap) % ringRows) * rowSamples
                        for index in 0..<rowSamples {
                            accumulators[index] += weight * source[index]
                        }
                    }
                    let destination = outputBase + outputY * rowSamples
                    for offset in stride(from: 0, to: rowSamples, by: 4) {
                        FloatPlane.storePixel(FloatPlane.load(accumulators + offset), to: destination + offset)
                    }
                }
            }
            initialized = count
        }
        return Image(width: outputWidth, height: outputHeight, pixels: pixels)
    }

    /// Filters one row of input floats horizontally into `weights.outputSize × 4` floats.
    @inline(__always)
    private static func filterRow(
        _ source: UnsafePointer<Float>, weights: ResamplingWeights, into destination: UnsafeMutablePointer<Float>
    ) {
        weights.starts.withUnsafeBufferPointer { starts in
            weights.counts.withUnsafeBufferPointer { counts in
                weights.coefficients.withUnsafeBufferPointer { coefficients in
                    guard let coefficientBase = coefficients.baseAddress else { return }
                    var output = destination
                    for outputX in 0..<weights.outputSize {
                        var pixel = source + starts[outputX] * 4
                        let taps = coefficientBase + outputX * weights.stride
                        let count = counts[outputX]
                        // Four independent sums: one would wait on each add's latency (floats do not reassociate).
                        var sums = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
                        var tap = 0
                        while tap + 4 <= count {
                            sums.0 += FloatPlane.load(pixel) * taps[tap]
                            sums.1 += FloatPlane.load(pixel + 4) * taps[tap + 1]
                            sums.2 += FloatPlane.load(pixel + 8) * taps[tap + 2]
                            sums.3 += FloatPlane.load(pixel + 12) * taps[tap + 3]
                            pixel += 16
                            tap += 4
                        }
                        while tap < count {
                            sums.0 += FloatPlane.load(pixel) * taps[tap]
                            pixel += 4
                            tap += 1
                        }
                        FloatPlane.store((sums.0 + sums.1) + (sums.2 + sums.3), to: output)
                        output += 4
                    }
                }
            }
        }
    }
}
