import MediaAssetsImage

/// Lays images out in a grid on one opaque image, each centred in its cell.
public enum ContactSheet {
    /// Composes `images` row by row, `columns` per row, over `background`.
    ///
    /// Each cell is as large as the largest image plus `padding` on every side; images are
    /// composited "over" the background in premultiplied RGBA, so transparent corners show it.
    /// Returns nil for no images.
    public static func compose(
        _ images: [Image], columns: Int, padding: Int = 8, background: RGBA = RGBA(red: 0xF2, green: 0xF2, blue: 0xF2)
    ) -> Image? {
        guard !images.isEmpty else { return nil }
        let columns = max(1, min(columns, images.count))
        let rows = (images.count + columns - 1) / columns
        let cellWidth = (images.map(\.width).max() ?? 1) + 2 * padding
        let cellHeight = (images.map(\.height).max() ?? 1) + 2 * padding
        var sheet = Image(width: columns * cellWidth, height: rows * cellHeight, fill: background)
        for (index, image) in images.enumerated() {
            let left = (index % columns) * cellWidth + (cellWidth - image.width) / 2
            let top = (index / columns) * cellHeight + (cellHeight - image.height) / 2
            draw(image, over: &sheet, left: left, top: top)
        }
        return sheet
    }

    /// Premultiplied "over": destination = source + destination × (255 − source alpha) / 255.
    static func draw(_ image: Image, over sheet: inout Image, left: Int, top: Int) {
        let sheetWidth = sheet.width
        image.pixels.withUnsafeBufferPointer { source in
            sheet.pixels.withUnsafeMutableBufferPointer { destination in
                for row in 0..<image.height {
                    var sourceOffset = row * image.width * 4
                    var destinationOffset = ((top + row) * sheetWidth + left) * 4
                    for _ in 0..<image.width {
                        let keep = 255 - UInt16(source[sourceOffset + 3])
                        for channel in 0..<4 {
                            let below = (UInt16(destination[destinationOffset + channel]) * keep + 127) / 255
                            destination[destinationOffset + channel] = UInt8(
                                min(255, UInt16(source[sourceOffset + channel]) + below)
                            )
                        }
                        sourceOffset += 4
                        destinationOffset += 4
                    }
                }
            }
        }
    }
}
