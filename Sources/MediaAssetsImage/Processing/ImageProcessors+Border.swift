extension ImageProcessors {
    /// Draws an anti-aliased border of `width` pixels inside the edge of a shape, composited
    /// "over" the image (premultiplied).
    ///
    /// Identifier: `border(w=<width>,#rrggbbaa,<shape>)` with shape `rectangle`, `rounded(r=<r>)` or
    /// `circle`, for example `border(w=2,#ff0000ff,circle)`. The `.circle` shape is the circle
    /// inscribed in the shorter side, centred, as `Circle` draws it.
    ///
    /// Drawn after a mask of the same shape, the outer edge pixels blend the border over the
    /// already anti-aliased image edge; `AvatarStyle` masks and strokes in one pass instead, which
    /// splits each edge pixel exactly.
    package struct Border: ImageProcessing, Hashable {
        /// The outline the border follows.
        package enum Shape: Sendable, Hashable {
            /// The image's edges.
            case rectangle
            /// The image's edges with corners of the given radius (clamped to half the shorter side).
            case roundedRectangle(radius: Double)
            /// The circle inscribed in the shorter side.
            case circle

            var identifier: String {
                switch self {
                case .rectangle: return "rectangle"
                case .roundedRectangle(let radius): return "rounded(r=\(ImageProcessors.format(radius)))"
                case .circle: return "circle"
                }
            }

            func outline(width: Int, height: Int) -> ShapeOutline {
                switch self {
                case .rectangle:
                    return ShapeOutline(width: Double(width), height: Double(height), cornerRadius: 0)
                case .roundedRectangle(let radius):
                    return ShapeOutline(width: Double(width), height: Double(height), cornerRadius: radius)
                case .circle:
                    return ShapeOutline.circle(width: Double(width), height: Double(height))
                }
            }
        }

        /// The border width in pixels, measured inwards from the shape's edge.
        package var width: Double
        /// The border colour (straight alpha).
        package var color: RGBA
        /// The outline the border follows.
        package var shape: Shape

        /// Creates a border of `width` pixels in `color` along `shape`.
        package init(width: Double, color: RGBA, shape: Shape = .rectangle) {
            self.width = width
            self.color = color
            self.shape = shape
        }

        /// `border(w=2,#ff0000ff,circle)`.
        package var identifier: String {
            "border(w=\(ImageProcessors.format(width)),\(ImageProcessors.hex(color)),\(shape.identifier))"
        }

        /// Throws for a bad width or corner radius.
        package func validate() throws {
            try ImageProcessors.validate(borderWidth: width, processor: identifier)
            if case .roundedRectangle(let radius) = shape {
                try ImageProcessors.validate(cornerRadius: radius, processor: identifier)
            }
        }

        /// Returns the image with the border drawn; throws for a bad width or corner radius.
        package func process(_ image: Image) throws -> Image {
            try validate()
            guard width > 0, color.alpha > 0 else { return image }
            let outline = shape.outline(width: image.width, height: image.height)
            let stroke = ShapeRenderer.Stroke(width: width, color: color)
            return ShapeRenderer.render(image, outline: outline, clips: false, stroke: stroke)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Border {
    /// Draws a border of `width` pixels in `color` inside the edge of `shape`.
    package static func border(
        width: Double, color: RGBA, shape: ImageProcessors.Border.Shape = .rectangle
    ) -> ImageProcessors.Border {
        ImageProcessors.Border(width: width, color: color, shape: shape)
    }
}
