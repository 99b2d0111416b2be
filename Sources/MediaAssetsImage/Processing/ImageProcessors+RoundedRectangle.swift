extension ImageProcessors {
    /// Makes the corners of an image transparent, with anti-aliased arcs.
    ///
    /// Identifier: `rounded(r=<radius>)`, for example `rounded(r=12)`, with
    /// `,border=<width>,#rrggbbaa` before the parenthesis when a stroke is drawn in the same pass. A
    /// radius larger than half the shorter side is clamped to it (a square becomes a circle).
    package struct RoundedRectangle: ImageProcessing, Hashable {
        /// The corner radius in pixels.
        package var cornerRadius: Double
        /// A border inside the edge, drawn with the mask.
        package var stroke: Stroke?

        /// Creates a processor that rounds corners to `cornerRadius` pixels, with a border inside the
        /// edge when `stroke` is given.
        package init(cornerRadius: Double, stroke: Stroke? = nil) {
            self.cornerRadius = cornerRadius
            self.stroke = stroke
        }

        /// `rounded(r=12)`, or `rounded(r=12,border=2,#ffffffff)`.
        package var identifier: String {
            let suffix = stroke.map { $0.width != 0 ? $0.identifierSuffix : "" } ?? ""
            return "rounded(r=\(ImageProcessors.format(cornerRadius))\(suffix))"
        }

        /// Throws for a negative or non-finite radius or stroke width.
        package func validate() throws {
            try ImageProcessors.validate(cornerRadius: cornerRadius, processor: identifier)
            try stroke?.validate(processor: identifier)
        }

        /// Returns the image with transparent corners; throws for a negative or non-finite radius or
        /// stroke width.
        package func process(_ image: Image) throws -> Image {
            try validate()
            let outline = ShapeOutline(
                width: Double(image.width), height: Double(image.height), cornerRadius: cornerRadius
            )
            return ShapeRenderer.render(image, outline: outline, clips: true, stroke: stroke?.rendered)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedRectangle {
    /// Rounds the corners to `cornerRadius` pixels, anti-aliased, with an optional border inside the edge.
    package static func roundedRectangle(
        cornerRadius: Double, stroke: ImageProcessors.Stroke? = nil
    ) -> ImageProcessors.RoundedRectangle {
        ImageProcessors.RoundedRectangle(cornerRadius: cornerRadius, stroke: stroke)
    }
}
