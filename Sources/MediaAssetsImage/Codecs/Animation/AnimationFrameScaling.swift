/// The size animation frames are delivered at, and the reduction that gets them there.
///
/// Frames are composited on the full canvas (GIF's disposal and transparency and WebP's blending need every
/// pixel of it), then each is resampled (box, then Lanczos3, as `ImageProcessors.Resize` does) to the smallest
/// size that covers the target with the canvas's aspect ratio. Only the canvas is ever held at full size, so a
/// window of frames costs the display size, not the file's.
enum AnimationFrameScaling {
    /// The canvas scaled down (never up) to the smallest size covering `target` in both dimensions; the canvas
    /// itself when `target` is `nil`. With a `region` (a still image's region of interest), the region is what
    /// must cover `target`.
    static func frameSize(canvas: PixelSize, target: PixelSize?, region: ImageRegion? = nil) -> PixelSize {
        guard let target, target.width > 0, target.height > 0, canvas.width > 0, canvas.height > 0 else {
            return canvas
        }
        let covered = region.map { $0.rect(in: canvas) }
        let coveredWidth = Double(covered?.width ?? canvas.width)
        let coveredHeight = Double(covered?.height ?? canvas.height)
        let scale = max(Double(target.width) / coveredWidth, Double(target.height) / coveredHeight)
        guard scale < 1 else { return canvas }
        return PixelSize(
            width: max(1, Int((Double(canvas.width) * scale).rounded())),
            height: max(1, Int((Double(canvas.height) * scale).rounded()))
        )
    }

    /// `image` resampled to exactly `size`; `image` itself when it already has that size.
    static func scaled(_ image: Image, to size: PixelSize) -> Image {
        guard image.width != size.width || image.height != size.height else { return image }
        return Resampler.resample(image, region: SourceRegion(wholeOf: image), to: size)
    }
}
