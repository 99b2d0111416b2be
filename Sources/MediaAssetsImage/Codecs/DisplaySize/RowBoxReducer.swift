/// Reduces premultiplied RGBA8 rows, handed over one at a time top to bottom, into the output of a
/// `DisplaySizePlan`: each output pixel is the exact average of the source block under it, so a decoder
/// never holds more than one source row and the reduced output.
///
/// Memory: the output, plus one `UInt32` per byte of a source row's region columns.
final class RowBoxReducer {
    let plan: DisplaySizePlan
    private let columns: Range<Int>
    private let rows: Range<Int>
    private let sums: UnsafeMutablePointer<UInt32>
    private var output: [UInt8]
    /// Source rows added to the band under way.
    private var bandRows = 0
    private var nextOutputRow = 0

    init(plan: DisplaySizePlan) {
        self.plan = plan
        columns = plan.sourceColumns
        rows = plan.sourceRows
        let sumCount = plan.factor == 1 ? 0 : columns.count * 4
        sums = .allocate(capacity: max(sumCount, 1))
        sums.initialize(repeating: 0, count: max(sumCount, 1))
        output = [UInt8](repeating: 0, count: plan.outputRect.width * plan.outputRect.height * 4)
    }

    deinit {
        sums.deallocate()
    }

    /// Whether source row `y` is needed at all (rows above and below the region are read and dropped).
    func needs(row y: Int) -> Bool { rows.contains(y) }

    /// Adds source row `y`: `sourceSize.width` premultiplied RGBA8 pixels at `row`. Rows must come in order.
    func add(row: UnsafePointer<UInt8>, y: Int) {
        guard rows.contains(y) else { return }
        let first = row + columns.lowerBound * 4
        let byteCount = columns.count * 4
        let factor = plan.factor
        output.withUnsafeMutableBufferPointer { output in
            let rowStart = output.baseAddress! + nextOutputRow * plan.outputRect.width * 4
            if factor == 1 {
                rowStart.update(from: first, count: byteCount)
                nextOutputRow += 1
                return
            }
            for index in 0..<byteCount { sums[index] &+= UInt32(first[index]) }
            bandRows += 1
            guard bandRows == factor || y + 1 == rows.upperBound else { return }
            emitBand(into: rowStart)
        }
    }

    /// The reduced region, once every row of it was added.
    func image() -> Image {
        Image(width: plan.outputRect.width, height: plan.outputRect.height, pixels: output)
    }

    /// Writes the averages of the band's blocks into one output row and clears the sums.
    private func emitBand(into rowStart: UnsafeMutablePointer<UInt8>) {
        let factor = plan.factor
        let columnCount = columns.count
        for outputX in 0..<plan.outputRect.width {
            let firstColumn = outputX * factor
            let blockColumns = min(factor, columnCount - firstColumn)
            var total = SIMD4<UInt32>()
            for column in firstColumn..<(firstColumn + blockColumns) {
                let sum = sums + column * 4
                total &+= SIMD4(sum[0], sum[1], sum[2], sum[3])
            }
            let count = UInt32(blockColumns * bandRows)
            let rounded = (total &+ count / 2) / count
            let pixel = rowStart + outputX * 4
            pixel[0] = UInt8(truncatingIfNeeded: rounded[0])
            pixel[1] = UInt8(truncatingIfNeeded: rounded[1])
            pixel[2] = UInt8(truncatingIfNeeded: rounded[2])
            pixel[3] = UInt8(truncatingIfNeeded: rounded[3])
        }
        sums.update(repeating: 0, count: columnCount * 4)
        bandRows = 0
        nextOutputRow += 1
    }
}
