import Foundation

extension WebPEncoder {
    /// Writes an animated WebP one frame at a time: each frame is encoded by libwebp as it is appended and
    /// only its bytes are kept, so a styled animation is made within one frame's memory plus the output
    /// (`ImageUtil.animationFrames(for:style:)` records its variants this way while they first play).
    ///
    /// Frames are full-canvas, not blended, not disposed; every frame has the first one's size. Durations are
    /// rounded down to milliseconds (at most 16777215 ms each).
    package struct AnimationWriter: Sendable {
        /// The encoder of every frame.
        package let encoder: WebPEncoder
        /// The size of the frames appended so far (the first one's), or `nil` before the first.
        package private(set) var canvas: PixelSize?
        /// How many frames were appended.
        package private(set) var frameCount = 0
        private var frameChunks = Data()
        private var hasAlpha = false

        /// A writer encoding each frame with `encoder`.
        package init(encoder: WebPEncoder) {
            self.encoder = encoder
        }

        /// Encodes `frame` and keeps its bytes.
        ///
        /// - Throws: `ImageError.encodingFailed` (a frame of another size than the first, or a side over WebP's
        ///   16383 pixels), `.libraryMissing`.
        package mutating func append(_ frame: AnimatedImage.Frame) throws {
            let size = PixelSize(width: frame.image.width, height: frame.image.height)
            if let canvas, canvas != size {
                throw ImageError.encodingFailed(
                    format: .webp, reason: "frame \(frameCount + 1) is \(size), the animation \(canvas)"
                )
            }
            let (seconds, attoseconds) = frame.duration.components
            let chunk = WebPContainer.frameChunk(
                WebPContainer.Frame(
                    chunks: try WebPContainer.bitstreamChunks(of: encoder.encode(frame.image)), x: 0, y: 0,
                    width: size.width, height: size.height,
                    milliseconds: Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000), flags: 0b10
                )
            )
            canvas = size
            frameCount += 1
            frameChunks.append(chunk)
            hasAlpha = hasAlpha || frame.image.hasTransparency
        }

        /// The animated WebP of the frames appended, playing `loopCount` times (0: forever); `nil` when no
        /// frame was appended.
        package func finish(loopCount: Int) -> Data? {
            guard let canvas else { return nil }
            return WebPContainer.animation(
                canvas: canvas, hasAlpha: hasAlpha, loopCount: loopCount, frameChunks: frameChunks
            )
        }
    }

    /// An animated WebP of `animation`, written frame by frame by an animation writer (only the container is
    /// written here; every bitstream comes from libwebp). `loopCount` 0 loops forever.
    ///
    /// - Throws: `ImageError.encodingFailed`, `.libraryMissing`.
    package func encode(_ animation: AnimatedImage) throws -> Data {
        var writer = AnimationWriter(encoder: self)
        for frame in animation.frames { try writer.append(frame) }
        guard let data = writer.finish(loopCount: animation.loopCount) else {
            throw ImageError.encodingFailed(format: .webp, reason: "an animation has at least one frame")
        }
        return data
    }
}
