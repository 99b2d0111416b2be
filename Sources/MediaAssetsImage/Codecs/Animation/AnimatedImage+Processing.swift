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
