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
