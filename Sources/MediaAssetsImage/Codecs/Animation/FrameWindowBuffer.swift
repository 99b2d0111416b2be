import Synchronization

/// The frames decoded ahead of an `AnimationFrames` iterator: a producer task pushes, the iterator pops, and
/// the producer waits for room before it decodes the next frame, so at most the window's frames and bytes
/// are ever decoded and waiting.
///
/// Cancelling (the iterator's task cancelled or the iterator dropped) wakes both sides with
/// `CancellationError`, and the producer stops before its next frame.
final class FrameWindowBuffer: Sendable {
    private struct State {
        var frames: [AnimatedImage.Frame] = []
        var queuedBytes = 0
        /// The size of the last frame pushed: the best guess of the next one's.
        var lastFrameBytes = 0
        var finished = false
        var failure: (any Error)?
        var cancelled = false
        var consumer: CheckedContinuation<AnimatedImage.Frame?, any Error>?
        var producer: CheckedContinuation<Void, any Error>?

        func _hasRoom(for window: AnimationFrameWindow) -> Bool {
            frames.isEmpty
                || (frames.count < window.frameCount && queuedBytes + lastFrameBytes <= window.byteCount)
        }
    }

    private let window: AnimationFrameWindow
    private let state = Mutex(State())

    init(window: AnimationFrameWindow) {
        self.window = window
    }

    /// Whether the producer is parked until a frame is taken (tests check the window bound with it).
    var isProducerWaiting: Bool { state.withLock { $0.producer != nil } }

    /// How many frames are decoded and waiting.
    var queuedCount: Int { state.withLock { $0.frames.count } }

    // MARK: Producer

    /// Returns once a frame decoded now would fit in the window.
    ///
    /// - Throws: `CancellationError` once the iterator is gone or its task cancelled.
    func waitForRoom() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                if state.cancelled { return .failure(CancellationError()) }
                if state._hasRoom(for: window) { return .success(()) }
                state.producer = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Hands `frame` to a waiting iterator, or queues it.
    func push(_ frame: AnimatedImage.Frame) {
        let consumer = state.withLock { state -> CheckedContinuation<AnimatedImage.Frame?, any Error>? in
            guard !state.cancelled else { return nil }
            state.lastFrameBytes = frame.image.cost
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.frames.append(frame)
            state.queuedBytes += frame.image.cost
            return nil
        }
        consumer?.resume(returning: frame)
    }

    /// Ends the sequence after the queued frames, with `failure` if given.
    func finish(throwing failure: (any Error)? = nil) {
        let consumer = state.withLock { state -> CheckedContinuation<AnimatedImage.Frame?, any Error>? in
            state.finished = true
            state.failure = failure
            defer { state.consumer = nil }
            return state.consumer
        }
        if let failure { consumer?.resume(throwing: failure) } else { consumer?.resume(returning: nil) }
    }

    // MARK: Iterator

    /// The next frame: a queued one at once, else the one being decoded; `nil` after the last.
    func next() async throws -> AnimatedImage.Frame? {
        try await withCheckedThrowingContinuation { continuation in
            let (outcome, producer) = state.withLock {
                state -> (Result<AnimatedImage.Frame?, any Error>?, CheckedContinuation<Void, any Error>?) in
                if state.cancelled { return (.failure(CancellationError()), nil) }
                if !state.frames.isEmpty {
                    let frame = state.frames.removeFirst()
                    state.queuedBytes -= frame.image.cost
                    defer { state.producer = nil }
                    return (.success(frame), state.producer)
                }
                if state.finished {
                    defer { state.failure = nil }
                    return (state.failure.map { .failure($0) } ?? .success(nil), nil)
                }
                state.consumer = continuation
                let producer = state.producer
                state.producer = nil
                return (nil, producer)
            }
            producer?.resume()
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Stops both sides: a waiting iterator and a waiting producer get `CancellationError`, queued frames are
    /// let go of.
    func cancel() {
        let (consumer, producer) = state.withLock { state in
            state.cancelled = true
            state.frames = []
            state.queuedBytes = 0
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.consumer, state.producer)
        }
        consumer?.resume(throwing: CancellationError())
        producer?.resume(throwing: CancellationError())
    }
}
