/// Decoded frames of an animation (GIF, animated WebP) with their durations and loop count; a still image is
/// one frame.
///
/// Every frame is a full canvas, already composited as browsers show it (disposal, blending, transparency),
/// so a player only swaps images. The decoders refuse an animation over `ImageDecodingOptions.maxFrameCount`
/// or `maxAnimationPixelCount` before decoding its frames, which bounds what one value can hold.
public struct AnimatedImage: Sendable, Hashable {
    /// One composited frame and how long it is shown.
    public struct Frame: Sendable, Hashable {
        /// The whole canvas at this frame, premultiplied RGBA.
        public var image: Image
        /// How long the frame is shown.
        public var duration: Duration

        /// Creates a frame.
        public init(image: Image, duration: Duration) {
            self.image = image
            self.duration = duration
        }
    }

    /// The frames in display order; never empty.
    public let frames: [Frame]
    /// How many times the animation plays; 0 means forever.
    public let loopCount: Int

    /// Creates an animation.
    ///
    /// - Precondition: `frames` is not empty and every frame has the same size.
    public init(frames: [Frame], loopCount: Int) {
        precondition(!frames.isEmpty, "An animation has at least one frame")
        precondition(
            frames.allSatisfy { $0.image.width == frames[0].image.width && $0.image.height == frames[0].image.height },
            "Every frame of an animation has the canvas size"
        )
        self.frames = frames
        self.loopCount = loopCount
    }

    /// A still image as a one-frame animation shown for no time.
    package init(still image: Image) {
        self.init(frames: [Frame(image: image, duration: .zero)], loopCount: 0)
    }

    /// The first frame: what static styles of an animated source use.
    public var firstFrame: Image { frames[0].image }

    /// Whether there is more than one frame.
    public var isAnimated: Bool { frames.count > 1 }

    /// The canvas size shared by all frames.
    public var size: PixelSize { PixelSize(width: firstFrame.width, height: firstFrame.height) }

    /// One pass through all frames.
    package var totalDuration: Duration { frames.reduce(.zero) { $0 + $1.duration } }

    /// The memory all frames occupy, in bytes: what a memory cache charges for this value.
    package var cost: Int { frames.reduce(0) { $0 + $1.image.cost } }
}

extension AnimatedImage {
    /// This animation with `processor` (an `AvatarStyle`, a resize) applied to every frame; durations and the
    /// loop count are kept.
    ///
    /// - Throws: the processor's error.
    package func processed(by processor: some ImageProcessing) throws -> AnimatedImage {
        AnimatedImage(
            frames: try frames.map { Frame(image: try processor.process($0.image), duration: $0.duration) },
            loopCount: loopCount
        )
    }
}

extension AnimatedImage {
    /// Every frame of `source`, each reduced toward `options.targetSize` as it is composited, after the frame
    /// count and the pixels all frames will hold (at that size) are checked against the limits, so an animation
    /// over them is refused before its first frame is decoded.
    ///
    /// - Throws: `ImageError.tooManyFrames`, `.animationTooLarge`, or the source's error; `.corrupt` when the
    ///   frames decoded disagree with the headers' count.
    init(decoding source: any AnimationFrameSource, _ options: ImageDecodingOptions) throws {
        let info = source.info
        let frameSize = AnimationFrameScaling.frameSize(canvas: info.canvas, target: options.targetSize)
        try ImageDecoder.checkAnimationLimits(
            format: info.format, frameCount: info.frameCount, canvas: frameSize, options: options
        )
        var frames: [Frame] = []
        frames.reserveCapacity(info.frameCount)
        while let (canvas, duration) = try source.nextFrame() {
            frames.append(Frame(image: AnimationFrameScaling.scaled(canvas, to: frameSize), duration: duration))
            guard frames.count <= info.frameCount else { break }
        }
        guard frames.count == info.frameCount else {
            throw ImageError.corrupt(
                format: info.format,
                reason: "\(frames.count) frames decoded where the headers declare \(info.frameCount)"
            )
        }
        self.init(frames: frames, loopCount: info.loopCount)
    }
}
