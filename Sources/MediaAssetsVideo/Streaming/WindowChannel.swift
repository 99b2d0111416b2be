import Foundation
import Synchronization

/// The hand-over between a stream's producer and its consumer, counting the bytes between them.
///
/// The producer hands pieces over as they arrive and, before it starts a window, waits until the consumer
/// holds at most a given number of bytes it has not taken (a stream waits for none).
final class WindowChannel: Sendable {
    private struct State {
        var pieces: [Data] = []
        var head = 0
        var ending: Result<Void, Error>?
        var isClosed = false
        var consumer: CheckedContinuation<Data?, Error>?
        var producer: (limit: Int, continuation: CheckedContinuation<Bool, Never>)?
        var bufferedBytes = 0
    }

    private let state = Mutex(State())
    /// Told the bytes buffered after each change, and +1/-1 when the producer parks/resumes.
    private let observe: @Sendable (_ bufferedBytes: Int, _ parkedChange: Int) -> Void

    init(observe: @escaping @Sendable (_ bufferedBytes: Int, _ parkedChange: Int) -> Void) {
        self.observe = observe
    }

    // MARK: Producer side

    /// Returns once the consumer holds at most `limit` bytes it has not taken: `false` when it is gone.
    func waitUntilBuffered(atMost limit: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let (ready, buffered) = state.withLock { state -> (Bool?, Int) in
                if state.isClosed { return (false, state.bufferedBytes) }
                if state.bufferedBytes <= limit { return (true, state.bufferedBytes) }
                state.producer = (limit, continuation)
                return (nil, state.bufferedBytes)
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                observe(buffered, 1)
            }
        }
    }

    /// Hands a piece to the consumer (dropped when it is gone).
    func send(_ piece: Data) {
        guard !piece.isEmpty else { return }
        let (consumer, buffered) = state.withLock { state -> (CheckedContinuation<Data?, Error>?, Int) in
            guard !state.isClosed else { return (nil, state.bufferedBytes) }
            if let consumer = state.consumer {
                state.consumer = nil
                return (consumer, state.bufferedBytes)
            }
            state.pieces.append(piece)
            state.bufferedBytes += piece.count
            return (nil, state.bufferedBytes)
        }
        if let consumer {
            consumer.resume(returning: piece)
        } else {
            observe(buffered, 0)
        }
    }

    /// Ends the stream after the pieces handed over, with `error` when given.
    func finish(throwing error: Error? = nil) {
        let consumer = state.withLock { state -> CheckedContinuation<Data?, Error>? in
            state.ending = error.map { .failure($0) } ?? .success(())
            guard state.head == state.pieces.count else { return nil }
            defer { state.consumer = nil }
            return state.consumer
        }
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
    }

    // MARK: Consumer side

    /// The next piece, waiting for the producer; `nil` at the end.
    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            typealias Step = (Result<Data?, Error>?, CheckedContinuation<Bool, Never>?, buffered: Int)
            let (outcome, producer, buffered) = state.withLock { state -> Step in
                if state.isClosed { return (.failure(CancellationError()), nil, 0) }
                if state.head < state.pieces.count {
                    let piece = state.pieces[state.head]
                    state.pieces[state.head] = Data()
                    state.head += 1
                    if state.head == state.pieces.count {
                        state.pieces.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    state.bufferedBytes -= piece.count
                    var producer: CheckedContinuation<Bool, Never>?
                    if let waiting = state.producer, state.bufferedBytes <= waiting.limit {
                        producer = waiting.continuation
                        state.producer = nil
                    }
                    return (.success(piece), producer, state.bufferedBytes)
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

    /// The consumer is gone: releases the producer and any waiting piece.
    func close() {
        let (consumer, producer) = state.withLock { state in
            state.isClosed = true
            state.pieces = []
            state.head = 0
            state.bufferedBytes = 0
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.consumer, state.producer?.continuation)
        }
        observe(0, producer == nil ? 0 : -1)
        consumer?.resume(throwing: CancellationError())
        producer?.resume(returning: false)
    }
}
