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

    /// Refuses to reduce frames of a canvas whose long side is more than `AnimationFrameReader.maxAspectRatio`
    /// times its short side: covering a target, such a frame keeps about that many times the target's pixels
    /// (a 9×458759 canvas reduced toward 7×5 makes frames of 7×356813), and every frame pays a Lanczos pass
    /// over all of them. Checked from the headers, before any frame is decoded. A canvas whose frames are not
    /// reduced (no target, or one the canvas does not exceed) is not checked: each of its frames is a copy.
    ///
    /// - Throws: `ImageError.unsupported`
    static func checkReduction(of info: AnimationInfo, to frameSize: PixelSize) throws {
        let canvas = info.canvas
        guard frameSize != canvas, canvas.width > 0, canvas.height > 0 else { return }
        let long = max(canvas.width, canvas.height)
        let short = min(canvas.width, canvas.height)
        let (bound, overflow) = short.multipliedReportingOverflow(by: AnimationFrameReader.maxAspectRatio)
        guard !overflow, long > bound else { return }
        throw ImageError.unsupported(
            format: info.format,
            reason: "frames of a \(canvas.width)×\(canvas.height) canvas are not reduced toward a target: its long "
                + "side is over \(AnimationFrameReader.maxAspectRatio) times its short side (AnimationFrameReader."
                + "maxAspectRatio), so each \(frameSize.width)×\(frameSize.height) frame would cost a resample of "
                + "\(frameSize.width * frameSize.height) pixels; decode it without a target size"
        )
    }

    /// `image` resampled to exactly `size`; `image` itself when it already has that size.
    static func scaled(_ image: Image, to size: PixelSize) -> Image {
        guard image.width != size.width || image.height != size.height else { return image }
        return Resampler.resample(image, region: SourceRegion(wholeOf: image), to: size)
    }
}
