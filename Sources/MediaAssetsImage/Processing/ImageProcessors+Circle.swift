extension ImageProcessors {
    /// Cuts the centred square of an image and makes everything outside its inscribed circle
    /// transparent, with an anti-aliased edge.
    ///
    /// Identifier: `circle`. Scale first (`.aspectFillCrop(size:)`) to choose the diameter.
    public struct Circle: ImageProcessing, Hashable {
        /// Creates a circle mask.
        public init() {}

        /// `circle`.
        public var identifier: String { "circle" }

        /// Returns a square image showing a disc; never throws.
        public func process(_ image: Image) throws -> Image {
            let side = min(image.width, image.height)
            let square = image.centerCropped(width: side, height: side)
            let outline = ShapeOutline.circle(width: Double(side), height: Double(side))
            return ShapeRenderer.render(square, outline: outline, clips: true, stroke: nil)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// Crops to the centred square and masks it to its inscribed circle, anti-aliased.
    public static func circle() -> ImageProcessors.Circle {
        ImageProcessors.Circle()
    }
}
