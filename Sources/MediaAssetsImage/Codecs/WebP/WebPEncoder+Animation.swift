import Foundation

extension WebPEncoder {
    /// An animated WebP of `animation`: every frame encoded by libwebp as `compression` says, wrapped in the
    /// WebP container's `VP8X`, `ANIM` and `ANMF` chunks (full-canvas frames, no blending, no disposal).
    ///
    /// Only the container is written here; every bitstream comes from libwebp. Frame durations are rounded
    /// down to milliseconds (at most 16777215 ms each); `loopCount` 0 loops forever.
    ///
    /// - Throws: `ImageError.encodingFailed`, `.libraryMissing`.
    public func encode(_ animation: AnimatedImage) throws -> Data {
        let canvas = animation.size
        let frames = try animation.frames.map { frame in
            let (seconds, attoseconds) = frame.duration.components
            return WebPContainer.Frame(
                chunks: try WebPContainer.bitstreamChunks(of: encode(frame.image)), x: 0, y: 0,
                width: canvas.width, height: canvas.height,
                milliseconds: Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000), flags: 0b10
            )
        }
        return WebPContainer.animation(
            canvas: canvas, hasAlpha: animation.frames.contains { $0.image.hasTransparency },
            loopCount: animation.loopCount, frames: frames
        )
    }
}
