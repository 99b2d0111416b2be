import Foundation
import MediaAssets

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

/// How far `AnimationFrames` decodes ahead of the frame shown: at most `frameCount` frames and `byteCount`
/// bytes of them wait decoded, whichever bound comes first (always at least one frame).
///
/// The window is what an animation costs while it plays, beside one canvas at the file's size (and, for
/// animated WebP, libwebpdemux's two): a 200-frame 1000×1000 GIF shown at 200 px holds a 4 MB canvas and a
/// few 160 KB frames, not 800 MB of frames. A larger window absorbs longer stalls of the decoding task; a
/// smaller one costs less.
public struct AnimationFrameWindow: Sendable, Hashable {
    /// The most frames decoded ahead (at least 1). Default: 8.
    public var frameCount: Int
    /// The most bytes of frames decoded ahead (`Image.cost`); one frame is decoded ahead even when it alone is
    /// larger. Default: 4 MiB.
    public var byteCount: Int

    /// Creates a window of at most `frameCount` frames and `byteCount` bytes.
    public init(frameCount: Int = 8, byteCount: Int = 4 << 20) {
        self.frameCount = max(1, frameCount)
        self.byteCount = max(0, byteCount)
    }
}

/// Where an animation's per-frame CPU work runs: one frame (composite, reduce, style, encode) per call, never
/// a whole pass, so a long animation never holds a thread for long.
///
/// Through a util, each frame takes a slot of the manager's decode limiter and runs on the manager's executor;
/// standalone, it runs on `executor` when one is given, else on the iterating task's own. A frame waits for its
/// slot at the iterating ask's live priority (`LivePriority.current`, which the decoding task inherits), else at
/// `priority`.
struct AnimationFrameWork: Sendable {
    /// The limiter each frame's work takes a slot of, or `nil`.
    var limiter: WorkLimiter?
    /// Where each frame's work runs, or `nil` for the decoding task's own executor.
    var executor: (any TaskExecutor)?
    /// The priority a frame waits with when no live priority is bound.
    var priority = LivePriority(.normal)

    /// Runs one frame's work.
    func run<T: Sendable>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        guard let limiter else { return try await onExecutor(work) }
        return try await limiter.run(priority: LivePriority.current ?? priority) { try await onExecutor(work) }
    }

    private func onExecutor<T: Sendable>(_ work: () throws -> T) async throws -> T {
        guard let executor else { return try work() }
        return try await withTaskExecutorPreference(executor) { try work() }
    }
}

/// What an animation's headers say, read without decoding a frame: its format, canvas, frame count and loop
/// count.
///
/// GIF's are read by walking its blocks to the trailer (extensions and image descriptors; the compressed pixels
/// are skipped, never decompressed), animated WebP's from libwebpdemux's container parse. Decoders check their
/// limits against these before decoding any frame, and `image-example` prints its summary from them.
/// A still image, and the formats that read no animation headers (JPEG, PNG, HEIF, decoders you register), is
/// one frame.
public struct AnimationInfo: Sendable, Hashable {
    /// The encoded format.
    public var format: ImageFormat
    /// The size every frame is composited on (the upright size of a still image).
    public var canvas: PixelSize
    /// How many frames the file holds (at least 1).
    public var frameCount: Int
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int

    /// Creates animation facts.
    package init(format: ImageFormat, canvas: PixelSize, frameCount: Int, loopCount: Int) {
        self.format = format
        self.canvas = canvas
        self.frameCount = frameCount
        self.loopCount = loopCount
    }

    /// Whether there is more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// Refuses a canvas over `options.maxPixelCount` before anything of its size is allocated.
    func checkCanvas(within options: ImageDecodingOptions) throws {
        try ImageDecoder.checkPixelLimit(
            of: ImageHeader(
                format: format, width: canvas.width, height: canvas.height, orientation: .identity, hasAlpha: true
            ),
            options: options
        )
    }
}
