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
