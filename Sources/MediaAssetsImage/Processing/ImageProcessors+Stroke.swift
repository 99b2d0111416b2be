extension ImageProcessors {
    /// A border drawn by a shape mask in the same pass as the mask (`Circle`, `RoundedRectangle`), so
    /// each edge pixel is split exactly between image, border and transparency.
    package struct Stroke: Sendable, Hashable {
        /// The width in pixels, measured inwards from the shape's edge.
        package var width: Double
        /// The colour (straight alpha).
        package var color: RGBA

        /// Creates a stroke of `width` pixels in `color`.
        package init(width: Double, color: RGBA) {
            self.width = width
            self.color = color
        }

        /// `,border=<width>,#rrggbbaa`: the suffix a stroke adds to its mask's identifier.
        var identifierSuffix: String { ",border=\(ImageProcessors.format(width)),\(ImageProcessors.hex(color))" }

        /// Throws for a negative or non-finite width.
        func validate(processor: String) throws {
            try ImageProcessors.validate(borderWidth: width, processor: processor)
        }

        /// What the renderer draws: nothing for a zero width or a transparent colour.
        var rendered: ShapeRenderer.Stroke? {
            width > 0 && color.alpha > 0 ? ShapeRenderer.Stroke(width: width, color: color) : nil
        }
    }
}
