import Synchronization

/// Bounds how many operations of one pipeline stage run at once, admitting waiters by priority.
///
/// A burst of asks would otherwise download, decode and render everything at once and hold every
/// full-size bitmap in memory together. Each stage gets a limiter (as Nuke's data-loading and
/// decoding queues do); a waiter of higher priority is admitted first, and waiters of one priority
/// in the order they came. A cancelled waiter leaves the queue with `CancellationError`.
public final class WorkLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Error>
    }

    private struct State {
        var running = 0
        /// Waiters by priority, highest first; each queue in arrival order.
        var queues: [(priority: UInt8, waiters: [Waiter])] = []
        var nextID: UInt64 = 0
        var peak = 0

        mutating func _enqueue(_ waiter: Waiter, priority: UInt8) {
            if let index = queues.firstIndex(where: { $0.priority == priority }) {
                queues[index].waiters.append(waiter)
            } else {
                let index = queues.firstIndex { $0.priority < priority } ?? queues.endIndex
                queues.insert((priority, [waiter]), at: index)
            }
        }

        mutating func _dequeueNext() -> Waiter? {
            guard !queues.isEmpty else { return nil }
            let waiter = queues[0].waiters.removeFirst()
            if queues[0].waiters.isEmpty { queues.removeFirst() }
            return waiter
        }

        mutating func _remove(_ id: UInt64) -> Waiter? {
            for index in queues.indices {
                if let position = queues[index].waiters.firstIndex(where: { $0.id == id }) {
                    let waiter = queues[index].waiters.remove(at: position)
                    if queues[index].waiters.isEmpty { queues.remove(at: index) }
                    return waiter
                }
            }
            return nil
        }
    }

    /// The most operations that run at once.
    public let limit: Int
    private let state = Mutex(State())

    /// Creates a limiter admitting at most `limit` operations at once (at least 1).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The most operations that ran at once so far.
    public var peakConcurrency: Int { state.withLock { $0.peak } }

    /// Runs `operation` once fewer than `limit` operations are running.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting, or `operation`'s error.
    public func run<T: Sendable>(
        priority: TaskPriority = .medium, _ operation: () async throws -> T
    ) async throws -> T {
        try await acquire(priority: priority)
        defer { release() }
        return try await operation()
    }

    private func acquire(priority: TaskPriority) async throws {
        let id: UInt64? = state.withLock { state in
            if state.running < limit {
                state.running += 1
                state.peak = max(state.peak, state.running)
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let cancelled = state.withLock { state -> Bool in
                    // Checked under the lock: the handler either finds this waiter or it was never queued.
                    guard !Task.isCancelled else { return true }
                    if state.running < limit {
                        state.running += 1
                        state.peak = max(state.peak, state.running)
                        continuation.resume()
                        return false
                    }
                    state._enqueue(Waiter(id: id, continuation: continuation), priority: priority.rawValue)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { $0._remove(id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release() {
        // The slot passes straight to the next waiter, so `running` stays counted.
        let next = state.withLock { state -> Waiter? in
            if let next = state._dequeueNext() { return next }
            state.running -= 1
            return nil
        }
        next?.continuation.resume()
    }
}
