import Foundation

/// The frames of an animation as an `AsyncSequence`, decoded ahead in a bounded window at a display size:
/// what a player iterates to show a GIF or animated WebP without holding its frames.
///
/// Iterating starts a task that decodes frames in order, each composited on the canvas and reduced to the
/// display size as it is made, and keeps at most `window` of them waiting; it waits while the window is full
/// and stops for good when the iterating task is cancelled or the iterator is dropped. Frames come with the
/// time each is shown; the sequence replays the animation `info.loopCount` times (forever for 0) and ends, a
/// still image being one frame. Each frame's CPU work is one hop, on `executor` when one is given (see
/// `ImageUtil.animationFrames(for:)`, which runs each frame on the manager's executor in a slot of its decode
/// limiter).
///
/// ```swift
/// let frames = try AnimationFrames(data: gif, options: ImageDecodingOptions(targetSize: .square(200)))
/// for try await frame in frames {
///     show(frame.image)
///     try await Task.sleep(for: frame.duration)
/// }
/// ```
///
/// Memory while playing: the window's frames, one canvas at the file's size (GIF; animated WebP adds
/// libwebpdemux's two canvases and a copy of the file's bytes) and the frame being made. A 200-frame
/// 1000×1000 GIF shown at 200 px stays under 16 MiB (the `Animation frame window` tests measure it in a
/// child process), where `AnimatedImage` would hold 800 MB. The canvas must fit `options.maxPixelCount`;
/// the animation limits (`maxFrameCount`, `maxAnimationPixelCount`) bound frames kept together, which a
/// window never does, and do not apply.
public struct AnimationFrames: AsyncSequence, Sendable {
    /// A decoded frame and how long it is shown.
    public typealias Element = AnimatedImage.Frame

    /// The headers' facts: canvas, frame count, loop count.
    public let info: AnimationInfo
    /// How many frames (and bytes of them) are decoded ahead.
    package let window: AnimationFrameWindow

    let production: AnimationFrameProduction

    /// The frames of `data`, decoded with `codecs` within `options`' limits and reduced to the smallest size
    /// covering `options.targetSize` (full size without one), at most `window` of them decoded ahead.
    ///
    /// Reads only the headers (a GIF's blocks are walked to the trailer, no pixel decompressed): unknown, cut
    /// or oversized input (also a canvas over `AnimationFrameReader.maxAspectRatio` whose frames would be
    /// reduced) is refused here, before any frame is decoded. Each frame is decoded on `executor`
    /// (a `ThreadPoolExecutor`, a manager's `executor`) when one is given, else on the iterating task's own.
    ///
    /// - Throws: `ImageError`
    package init(
        data: Data, options: ImageDecodingOptions = .init(), window: AnimationFrameWindow = .init(),
        codecs: ImageCodecRegistry = .standard, executor: (any TaskExecutor)? = nil
    ) throws {
        let info = try codecs.animationInfo(of: data)
        try info.checkCanvas(within: options)
        try AnimationFrameScaling.checkReduction(
            of: info,
            to: AnimationFrameScaling.frameSize(
                canvas: info.canvas, target: options.targetSize, region: options.regionOfInterest
            )
        )
        var production = AnimationFrameProduction(data: data, info: info, options: options, codecs: codecs)
        production.work.executor = executor
        self.init(info: info, window: window, production: production)
    }

    init(info: AnimationInfo, window: AnimationFrameWindow, production: AnimationFrameProduction) {
        self.info = info
        self.window = window
        self.production = production
    }

    /// An iterator whose first `next()` starts decoding.
    public func makeAsyncIterator() -> Iterator {
        Iterator(production: production, window: window)
    }

    /// Pops decoded frames; its first `next()` starts the decoding task, which it cancels when dropped.
    public final class Iterator: AsyncIteratorProtocol {
        private let production: AnimationFrameProduction
        private let window: AnimationFrameWindow
        /// The window, once iterating started.
        private(set) var buffer: FrameWindowBuffer?
        /// The decoding task, once iterating started; it ends when the animation has played or decoding stopped.
        private(set) var producer: Task<Void, Never>?

        init(production: AnimationFrameProduction, window: AnimationFrameWindow) {
            self.production = production
            self.window = window
        }

        deinit {
            buffer?.cancel()
            producer?.cancel()
        }

        /// The next frame, waiting for it to be decoded when the window is empty; `nil` once the animation has
        /// played its loops.
        ///
        /// - Throws: `CancellationError` when the calling task is cancelled (decoding stops too), or the
        ///   error that stopped decoding (`ImageError`, or a util's wrapping of it).
        public func next() async throws -> AnimatedImage.Frame? {
            let buffer = start()
            let producer = producer
            return try await withTaskCancellationHandler {
                try await buffer.next()
            } onCancel: {
                buffer.cancel()
                producer?.cancel()
            }
        }

        private func start() -> FrameWindowBuffer {
            if let buffer { return buffer }
            let buffer = FrameWindowBuffer(window: window)
            let production = production
            // Unstructured: it inherits the iterating task's priority and task-locals, and outlives one `next()`.
            producer = Task { await production.produce(into: buffer) }
            self.buffer = buffer
            return buffer
        }
    }
}
