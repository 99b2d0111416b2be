extension ImageProcessors {
    /// Makes the corners of an image transparent, with anti-aliased arcs.
    ///
    /// Identifier: `rounded(r=<radius>)`, for example `rounded(r=12)`. A radius larger than half
    /// the shorter side is clamped to it (a square becomes a circle).
    public struct RoundedRectangle: ImageProcessing, Hashable {
        /// The corner radius in pixels.
        public var cornerRadius: Double

        /// Creates a processor that rounds corners to `cornerRadius` pixels.
        public init(cornerRadius: Double) {
            self.cornerRadius = cornerRadius
        }

        /// `rounded(r=12)`.
        public var identifier: String { "rounded(r=\(ImageProcessors.format(cornerRadius)))" }

        /// Returns the image with transparent corners; throws for a negative or non-finite radius.
        public func process(_ image: Image) throws -> Image {
            try ImageProcessors.validate(cornerRadius: cornerRadius, processor: identifier)
            let outline = ShapeOutline(
                width: Double(image.width), height: Double(image.height), cornerRadius: cornerRadius
            )
            return ShapeRenderer.render(image, outline: outline, clips: true, stroke: nil)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedRectangle {
    /// Rounds the corners to `cornerRadius` pixels, anti-aliased.
    public static func roundedRectangle(cornerRadius: Double) -> ImageProcessors.RoundedRectangle {
        ImageProcessors.RoundedRectangle(cornerRadius: cornerRadius)
    }
}
