import Foundation
import Synchronization

/// The hand-over between a stream's producer and its consumer: at most one window waits untaken.
///
/// The producer asks for demand before it reads a window, so it reads window `n + 1` only once the
/// consumer has taken window `n`; the consumer therefore holds at most the window it is working
/// through plus one more. Every byte handed over and not yet returned to the consumer is counted.
final class WindowChannel: Sendable {
    private struct State {
        var waiting: [Data]?
        var ending: Result<Void, Error>?
        var isClosed = false
        var consumer: CheckedContinuation<[Data]?, Error>?
        var producer: CheckedContinuation<Bool, Never>?
        var bufferedBytes = 0
    }

    private let state = Mutex(State())
    /// Told the bytes buffered after each change, and +1/-1 when the producer parks/resumes.
    private let observe: @Sendable (_ bufferedBytes: Int, _ parkedChange: Int) -> Void

    init(observe: @escaping @Sendable (_ bufferedBytes: Int, _ parkedChange: Int) -> Void) {
        self.observe = observe
    }

    // MARK: Producer side

    /// Returns once the consumer has taken every window handed over: `false` when it is gone.
    func waitForDemand() async -> Bool {
        await withCheckedContinuation { continuation in
            let (ready, buffered) = state.withLock { state -> (Bool?, Int) in
                if state.isClosed { return (false, state.bufferedBytes) }
                if state.waiting == nil { return (true, state.bufferedBytes) }
                state.producer = continuation
                return (nil, state.bufferedBytes)
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                observe(buffered, 1)
            }
        }
    }

    /// Hands a window to the consumer (dropped when it is gone).
    func send(_ window: [Data]) {
        let count = window.reduce(0) { $0 + $1.count }
        let (consumer, buffered) = state.withLock { state -> (CheckedContinuation<[Data]?, Error>?, Int) in
            guard !state.isClosed else { return (nil, state.bufferedBytes) }
            state.bufferedBytes += count
            if let consumer = state.consumer {
                state.consumer = nil
                return (consumer, state.bufferedBytes)
            }
            state.waiting = window
            return (nil, state.bufferedBytes)
        }
        observe(buffered, 0)
        consumer?.resume(returning: window)
    }

    /// Ends the stream after the windows handed over, with `error` when given.
    func finish(throwing error: Error? = nil) {
        let consumer = state.withLock { state -> CheckedContinuation<[Data]?, Error>? in
            state.ending = error.map { .failure($0) } ?? .success(())
            guard state.waiting == nil else { return nil }
            defer { state.consumer = nil }
            return state.consumer
        }
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
    }

    // MARK: Consumer side

    /// The next window, waiting for the producer; `nil` at the end.
    func nextWindow() async throws -> [Data]? {
        try await withCheckedThrowingContinuation { continuation in
            typealias Step = (Result<[Data]?, Error>?, CheckedContinuation<Bool, Never>?, buffered: Int)
            let (outcome, producer, buffered) = state.withLock { state -> Step in
                if state.isClosed { return (.failure(CancellationError()), nil, 0) }
                if let window = state.waiting {
                    state.waiting = nil
                    defer { state.producer = nil }
                    return (.success(window), state.producer, state.bufferedBytes)
                }
                if let ending = state.ending { return (ending.map { nil }, nil, 0) }
                state.consumer = continuation
                return (nil, nil, 0)
            }
            if let producer {
                observe(buffered, -1)
                producer.resume(returning: true)
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// The consumer has returned `count` bytes to its caller.
    func taken(_ count: Int) {
        let buffered = state.withLock { state -> Int in
            state.bufferedBytes -= count
            return state.bufferedBytes
        }
        observe(buffered, 0)
    }

    /// The consumer is gone: releases the producer and any waiting window.
    func close() {
        let (consumer, producer) = state.withLock { state in
            state.isClosed = true
            state.waiting = nil
            state.bufferedBytes = 0
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.consumer, state.producer)
        }
        observe(0, producer == nil ? 0 : -1)
        consumer?.resume(throwing: CancellationError())
        producer?.resume(returning: false)
    }
}
