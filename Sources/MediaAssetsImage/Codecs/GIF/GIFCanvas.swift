import CDynamicCodecs

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The canvas GIF frames are composited on, as browsers do it.
///
/// The canvas starts fully transparent. Before a frame is drawn, the previous frame's disposal is applied:
/// `.keep` leaves it, `.background` clears its rectangle to transparent, `.previous` restores the canvas as it
/// was before that frame. Transparent indices and indices past the palette leave the canvas pixel unchanged.
struct GIFCanvas {
    /// What happens to a frame's area before the next frame is drawn (graphic control disposal method).
    enum Disposal: Int {
        /// 0: unspecified, treated as keep.
        case unspecified = 0
        /// 1: leave the frame in place.
        case keep = 1
        /// 2: clear the frame's rectangle to transparent.
        case background = 2
        /// 3: restore the canvas to what it was before the frame.
        case previous = 3
    }

    /// A frame's rectangle in canvas coordinates (may reach past the canvas; drawing clips it).
    struct Rectangle {
        var left: Int
        var top: Int
        var width: Int
        var height: Int

        /// The columns inside a canvas `limit` wide (empty when the frame lies outside it).
        func columns(within limit: Int) -> Range<Int> { Self.clip(left, width, limit) }
        /// The rows inside a canvas `limit` high.
        func rows(within limit: Int) -> Range<Int> { Self.clip(top, height, limit) }

        private static func clip(_ start: Int, _ length: Int, _ limit: Int) -> Range<Int> {
            let lower = max(0, start)
            let upper = min(limit, start + length)
            return lower < upper ? lower..<upper : 0..<0
        }
    }

    let size: PixelSize
    private var pixels: [UInt8]
    /// The previous frame's disposal, with its rectangle's pixels as they were before it when it restores them.
    private var pendingDisposal: (disposal: Disposal, rectangle: Rectangle, saved: [UInt8]?)?

    /// A transparent canvas of `size` (`size.width * size.height * 4` bytes; callers check the pixel limit).
    init(size: PixelSize) {
        self.size = size
        pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
    }

    /// The canvas now. It shares the canvas's storage until the next frame is drawn: an image let go of before
    /// then (a frame reduced to a display size) costs no copy.
    var image: Image { Image(width: size.width, height: size.height, pixels: pixels) }

    /// Starts a frame: applies the previous frame's disposal and remembers this one's. For "restore to
    /// previous" only the frame's rectangle is saved: nothing outside it changes until the restore.
    mutating func beginFrame(in rectangle: Rectangle, disposal: Disposal) {
        applyPendingDisposal()
        pendingDisposal = (disposal, rectangle, disposal == .previous ? copy(of: rectangle) : nil)
    }

    /// Draws row `row` of the current frame (`line` holds `rectangle.width` palette indices), clipped to the
    /// canvas; rows may come in any order (interlaced files).
    mutating func drawRow(
        _ row: Int, _ line: UnsafeBufferPointer<UInt8>, in rectangle: Rectangle, palette: GIFPalette,
        transparentIndex: Int?
    ) {
        let y = rectangle.top + row
        guard y >= 0, y < size.height else { return }
        let columns = rectangle.columns(within: size.width)
        let colors = palette.colors
        let width = size.width
        pixels.withUnsafeMutableBufferPointer { canvas in
            for x in columns {
                let index = Int(line[x - rectangle.left])
                if index == transparentIndex || index >= colors.count { continue }
                let color = colors[index]
                let offset = (y * width + x) * 4
                canvas[offset] = color.red
                canvas[offset + 1] = color.green
                canvas[offset + 2] = color.blue
                canvas[offset + 3] = 255
            }
        }
    }

    private mutating func applyPendingDisposal() {
        guard let (disposal, rectangle, saved) = pendingDisposal else { return }
        pendingDisposal = nil
        switch disposal {
        case .unspecified, .keep:
            break
        case .previous:
            guard let saved else { break }
            forEachRow(of: rectangle) { rowRange, savedOffset in
                pixels.replaceSubrange(rowRange, with: saved[savedOffset..<savedOffset + rowRange.count])
            }
        case .background:
            forEachRow(of: rectangle) { rowRange, _ in
                // memset rather than `repeatElement`, which an unoptimised build fills byte by byte.
                pixels.withUnsafeMutableBytes { bytes in
                    _ = memset(bytes.baseAddress! + rowRange.lowerBound, 0, rowRange.count)
                }
            }
        }
    }

    /// The pixels of `rectangle`'s part inside the canvas, row after row.
    private func copy(of rectangle: Rectangle) -> [UInt8] {
        var saved: [UInt8] = []
        forEachRow(of: rectangle) { rowRange, _ in saved.append(contentsOf: pixels[rowRange]) }
        return saved
    }

    /// Calls `body` with the byte range of each canvas row `rectangle` covers (clipped) and where that row
    /// starts in a copy made by `copy(of:)`.
    private func forEachRow(of rectangle: Rectangle, _ body: (Range<Int>, Int) -> Void) {
        let columns = rectangle.columns(within: size.width)
        guard !columns.isEmpty else { return }
        var savedOffset = 0
        for y in rectangle.rows(within: size.height) {
            let start = (y * size.width + columns.lowerBound) * 4
            let end = (y * size.width + columns.upperBound) * 4
            body(start..<end, savedOffset)
            savedOffset += end - start
        }
    }
}
