extension ImageProcessors {
    /// Cuts the centred `size` out of an image, without scaling.
    ///
    /// Identifier: `crop(<w>x<h>)`. A side longer than the image's keeps the image's length.
    /// To scale first so the crop keeps as much of the image as possible, use
    /// `.aspectFillCrop(size:)` (a `Resize` with `crop`), which does both in one filtering pass.
    public struct CenterCrop: ImageProcessing, Hashable {
        /// The size to cut out.
        public var size: PixelSize

        /// Creates a centre crop to `size`.
        public init(size: PixelSize) {
            self.size = size
        }

        /// `crop(96x96)`.
        public var identifier: String { "crop(\(size))" }

        /// Throws `ImageProcessingError` for a size outside `1...16384`.
        public func validate() throws {
            try ImageProcessors.validate(size, processor: identifier)
        }

        /// Returns the centre of `image`; throws `ImageProcessingError` for a size outside `1...16384`.
        public func process(_ image: Image) throws -> Image {
            try validate()
            return image.centerCropped(width: size.width, height: size.height)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.CenterCrop {
    /// Cuts the centred `size` out of the image, without scaling.
    public static func centerCrop(size: PixelSize) -> ImageProcessors.CenterCrop {
        ImageProcessors.CenterCrop(size: size)
    }
}
