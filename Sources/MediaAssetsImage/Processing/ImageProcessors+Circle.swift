extension ImageProcessors {
    /// Cuts the centred square of an image and makes everything outside its inscribed circle
    /// transparent, with an anti-aliased edge.
    ///
    /// Identifier: `circle`, or `circle(border=<width>,#rrggbbaa)` with a stroke drawn in the same
    /// pass. Scale first (`.aspectFillCrop(size:)`) to choose the diameter.
    package struct Circle: ImageProcessing, Hashable {
        /// A border inside the circle's edge, drawn with the mask.
        package var stroke: Stroke?

        /// Creates a circle mask, with a border inside its edge when `stroke` is given.
        package init(stroke: Stroke? = nil) {
            self.stroke = stroke
        }

        /// `circle`, or `circle(border=2,#ffffffff)`.
        package var identifier: String {
            guard let stroke, stroke.width != 0 else { return "circle" }
            return "circle(" + stroke.identifierSuffix.dropFirst() + ")"
        }

        /// Throws for a bad stroke width.
        package func validate() throws {
            try stroke?.validate(processor: identifier)
        }

        /// Returns a square image showing a disc; throws only for a bad stroke width.
        package func process(_ image: Image) throws -> Image {
            try validate()
            let side = min(image.width, image.height)
            let square = image.centerCropped(width: side, height: side)
            let outline = ShapeOutline.circle(width: Double(side), height: Double(side))
            return ShapeRenderer.render(square, outline: outline, clips: true, stroke: stroke?.rendered)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// Crops to the centred square and masks it to its inscribed circle, anti-aliased, with an
    /// optional border inside the edge.
    package static func circle(stroke: ImageProcessors.Stroke? = nil) -> ImageProcessors.Circle {
        ImageProcessors.Circle(stroke: stroke)
    }
}
