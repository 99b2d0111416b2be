extension ImageProcessors {
    /// Scales an image to fit or fill a size with a proper low-pass filter (box, then Lanczos3).
    ///
    /// Identifier: `resize(<w>x<h>,fill|fit[,crop][,upscale])`, for example `resize(96x96,fill)`.
    ///
    /// With `.aspectFill` the result covers `size` (one side may be longer) unless `crop` is set, in
    /// which case the centre is cut to exactly `size` in the same filtering pass. With `.aspectFit`
    /// the result fits inside `size`. Without `upscale`, an image already within `size` is returned
    /// unchanged (or, when `crop` is set, cut to its largest centred part with the target's aspect ratio).
    public struct Resize: ImageProcessing, Hashable {
        /// How the image's aspect ratio meets the target's.
        public enum ContentMode: String, Sendable, Hashable {
            /// Scale so the image covers the size; the longer side overflows (or is cropped).
            case aspectFill = "fill"
            /// Scale so the whole image fits inside the size.
            case aspectFit = "fit"
        }

        /// The target size in pixels.
        package var size: PixelSize
        /// Fill or fit.
        package var contentMode: ContentMode
        /// Whether to cut the overflow of an aspect-fill resize so the result is exactly `size`
        /// (ignored with `.aspectFit`).
        package var crop: Bool
        /// Whether an image smaller than the target is enlarged.
        package var upscale: Bool

        /// The box stage's rule; only the avatar benchmark's baseline changes it (not part of the identifier).
        package var boxStage = ResamplingBoxStage.reducingGapOfTwo

        /// The original is decoded toward `size`: at least that large in both dimensions.
        public var targetSize: PixelSize? { size }

        /// With `crop` and `.aspectFill`, the centred part with `size`'s aspect ratio: the rest is cut away,
        /// so the original need not be decoded there.
        public var regionOfInterest: ImageRegion? {
            crop && contentMode == .aspectFill ? .centered(aspectRatio: size) : nil
        }

        /// Creates a resize to `size`.
        package init(
            size: PixelSize, contentMode: ContentMode = .aspectFill, crop: Bool = false, upscale: Bool = false
        ) {
            self.size = size
            self.contentMode = contentMode
            self.crop = crop
            self.upscale = upscale
        }

        /// `resize(96x96,fill)`, with `,crop` and `,upscale` when set.
        public var identifier: String {
            var text = "resize(\(size),\(contentMode.rawValue)"
            if crop && contentMode == .aspectFill { text += ",crop" }
            if upscale { text += ",upscale" }
            return text + ")"
        }

        /// Throws `ImageProcessingError` for a size outside `1...16384`.
        public func validate() throws {
            try ImageProcessors.validate(size, processor: identifier)
        }

        /// Returns the resized image; throws `ImageProcessingError` for a size outside `1...16384`.
        public func process(_ image: Image) throws -> Image {
            try validate()
            let scaleX = Double(size.width) / Double(image.width)
            let scaleY = Double(size.height) / Double(image.height)
            let fills = contentMode == .aspectFill
            let scale = fills ? max(scaleX, scaleY) : min(scaleX, scaleY)
            let crops = crop && fills
            if scale > 1 && !upscale {
                guard crops else { return image }
                // The largest centred part with the target's aspect ratio, at its own resolution.
                return image.centerCropped(
                    width: max(1, Int((Double(size.width) / scale).rounded())),
                    height: max(1, Int((Double(size.height) / scale).rounded()))
                )
            }
            // The side that sets the scale lands exactly on the target; the other is rounded.
            var scaled = PixelSize(
                width: scale == scaleX ? size.width : max(1, Int((Double(image.width) * scale).rounded())),
                height: scale == scaleY ? size.height : max(1, Int((Double(image.height) * scale).rounded()))
            )
            if crops {
                scaled = PixelSize(width: min(scaled.width, size.width), height: min(scaled.height, size.height))
            }
            guard scaled.width <= ImageProcessors.maximumDimension,
                scaled.height <= ImageProcessors.maximumDimension
            else {
                throw ImageProcessingError.sizeTooLarge(
                    scaled, limit: ImageProcessors.maximumDimension, processor: identifier
                )
            }
            if scaled == PixelSize(width: image.width, height: image.height) { return image }
            let regionWidth = min(Double(scaled.width) / scale, Double(image.width))
            let regionHeight = min(Double(scaled.height) / scale, Double(image.height))
            let region = SourceRegion(
                x: (Double(image.width) - regionWidth) / 2,
                y: (Double(image.height) - regionHeight) / 2,
                width: regionWidth,
                height: regionHeight
            )
            return Resampler.resample(image, region: region, to: scaled, boxStage: boxStage)
        }
    }
}

extension ImageProcessors.Resize {
    /// Fill and centre-cut to exactly `size`, enlarging small sources: what avatar styles need.
    static func exactFill(_ size: PixelSize) -> ImageProcessors.Resize {
        ImageProcessors.Resize(size: size, contentMode: .aspectFill, crop: true, upscale: true)
    }
}

extension ImageProcessing where Self == ImageProcessors.Resize {
    /// Scales to fill (default) or fit `size`; see `ImageProcessors.Resize`.
    public static func resize(
        size: PixelSize, contentMode: ImageProcessors.Resize.ContentMode = .aspectFill, upscale: Bool = false
    ) -> ImageProcessors.Resize {
        ImageProcessors.Resize(size: size, contentMode: contentMode, upscale: upscale)
    }

    /// Scales to fill `size` and cuts the centre to exactly `size`, in one filtering pass.
    ///
    /// With `upscale` (the default here, since callers want an exact size) smaller images are enlarged.
    public static func aspectFillCrop(size: PixelSize, upscale: Bool = true) -> ImageProcessors.Resize {
        ImageProcessors.Resize(size: size, contentMode: .aspectFill, crop: true, upscale: upscale)
    }
}

extension ImageProcessors {
    /// Cuts the centred `size` out of an image, without scaling.
    ///
    /// Identifier: `crop(<w>x<h>)`. A side longer than the image's keeps the image's length.
    /// To scale first so the crop keeps as much of the image as possible, use
    /// `.aspectFillCrop(size:)` (a `Resize` with `crop`), which does both in one filtering pass.
    public struct CenterCrop: ImageProcessing, Hashable {
        /// The size to cut out.
        package var size: PixelSize

        /// Creates a centre crop to `size`.
        package init(size: PixelSize) {
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
