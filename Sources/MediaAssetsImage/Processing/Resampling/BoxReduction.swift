/// The geometry of an integer box (area-average) reduction of the pixels under a region, and the
/// code that produces its rows one at a time, so the reduced image never has to be stored whole.
///
/// Blocks are `factorX × factorY` source pixels; the last row and column of blocks may be partial
/// and average only the pixels they hold.
struct BoxReduction {
    let left: Int
    let top: Int
    let right: Int
    let bottom: Int
    let factorX: Int
    let factorY: Int
    let outputWidth: Int
    let outputHeight: Int
    /// The source region in the reduced image's coordinates.
    let reducedRegion: SourceRegion

    init(imageWidth: Int, imageHeight: Int, region: SourceRegion, factorX: Int, factorY: Int) {
        left = max(0, Int(region.x.rounded(.down)))
        top = max(0, Int(region.y.rounded(.down)))
        right = max(left + 1, min(imageWidth, Int((region.x + region.width).rounded(.up))))
        bottom = max(top + 1, min(imageHeight, Int((region.y + region.height).rounded(.up))))
        self.factorX = factorX
        self.factorY = factorY
        outputWidth = (right - left + factorX - 1) / factorX
        outputHeight = (bottom - top + factorY - 1) / factorY
        reducedRegion = SourceRegion(
            x: (region.x - Double(left)) / Double(factorX),
            y: (region.y - Double(top)) / Double(factorY),
            width: region.width / Double(factorX),
            height: region.height / Double(factorY)
        )
    }

    /// Whether 16-bit column sums suffice (`255 × factorY` fits), which halves the hot loop's work.
    var fitsSixteenBitSums: Bool { factorY <= Int(UInt16.max) / 255 }

    /// Writes reduced row `outputY` (`outputWidth × 4` floats, unrounded) into `destination`.
    ///
    /// - Parameters:
    ///   - pixels: the source image's bytes, `imageWidth` pixels per row.
    ///   - columnSums: scratch of `(right - left) × 4` elements.
    @inline(__always)
    func row<Sum: FixedWidthInteger & UnsignedInteger & SIMDScalar>(
        _ outputY: Int, pixels: UnsafePointer<UInt8>, imageWidth: Int,
        columnSums: UnsafeMutablePointer<Sum>, into destination: UnsafeMutablePointer<Float>
    ) {
        let rowBytes = (right - left) * 4
        let firstRow = top + outputY * factorY
        let rows = min(factorY, bottom - firstRow)
        columnSums.update(repeating: 0, count: rowBytes)
        for row in firstRow..<(firstRow + rows) {
            let source = pixels + (row * imageWidth + left) * 4
            for index in 0..<rowBytes {
                columnSums[index] &+= Sum(truncatingIfNeeded: source[index])
            }
        }
        let sums = UnsafeRawPointer(columnSums)
        let columnStride = MemoryLayout<Sum>.stride * 4
        let fullScale = 1 / Float(rows * factorX)
        let lastScale = 1 / Float(rows * (right - left - (outputWidth - 1) * factorX))
        var output = destination
        for outputX in 0..<outputWidth {
            let firstColumn = outputX * factorX
            let columns = min(factorX, right - left - firstColumn)
            var sum = SIMD4<Int32>()
            for column in firstColumn..<(firstColumn + columns) {
                let columnSum = sums.loadUnaligned(fromByteOffset: column * columnStride, as: SIMD4<Sum>.self)
                sum &+= SIMD4<Int32>(truncatingIfNeeded: columnSum)
            }
            let scale = outputX == outputWidth - 1 ? lastScale : fullScale
            FloatPlane.store(SIMD4<Float>(sum) * scale, to: output)
            output += 4
        }
    }

    /// The whole reduction, rounded to bytes: only for the rare second box pass.
    func reduce(_ image: Image) -> Image {
        let plane = image.pixels.withUnsafeBufferPointer { pixels in
            let columnSums = UnsafeMutablePointer<UInt32>.allocate(capacity: (right - left) * 4)
            defer { columnSums.deallocate() }
            let count = outputWidth * outputHeight * 4
            let samples = [Float](unsafeUninitializedCapacity: count) { samples, initialized in
                guard let source = pixels.baseAddress, let base = samples.baseAddress else { return }
                for outputY in 0..<outputHeight {
                    row(
                        outputY, pixels: source, imageWidth: image.width, columnSums: columnSums,
                        into: base + outputY * outputWidth * 4
                    )
                }
                initialized = count
            }
            return FloatPlane(width: outputWidth, height: outputHeight, samples: samples)
        }
        return plane.quantized()
    }
}
