import Synchronization

/// Bounds how many operations of one pipeline stage run at once, admitting waiters by priority.
///
/// A burst of asks would otherwise download, decode and render everything at once and hold every
/// full-size bitmap in memory together. Each stage gets a limiter; a waiter of higher priority
/// (`AssetRequest.Priority`, five levels) is admitted first, and waiters of one priority in the order
/// they came. A waiter's priority is live: when its `LivePriority` changes, the waiter moves in the
/// queue at once (keeping its place in arrival order).
/// A cancelled waiter leaves the queue with `CancellationError`.
package final class WorkLimiter: Sendable {
    private struct State {
        var running = 0
        var waiters = WaiterQueue<CheckedContinuation<Void, Error>>()
        var nextID: UInt64 = 0
        var peak = 0

        mutating func _admitOne() {
            running += 1
            peak = max(peak, running)
        }
    }

    /// The most operations that run at once.
    package let limit: Int
    private let state = Mutex(State())

    /// Creates a limiter admitting at most `limit` operations at once (at least 1).
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The most operations that ran at once so far.
    package var peakConcurrency: Int { state.withLock { $0.peak } }

    /// Operations waiting for a slot.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `operation` once fewer than `limit` operations are running, ranked while it waits by
    /// `priority`, else by the current ask's (`LivePriority.current`), else as `.normal`.
    ///
    /// - Complexity: O(log n) to queue, leave or move a waiter, where n is the number waiting.
    /// - Throws: `CancellationError` if the task is cancelled while waiting, or `operation`'s error.
    package func run<T: Sendable>(
        priority: LivePriority? = nil, _ operation: () async throws -> T
    ) async throws -> T {
        try await acquire(priority ?? LivePriority.current)
        defer { release() }
        return try await operation()
    }

    /// Runs `operation` once fewer than `limit` operations are running, ranked by a fixed `priority`.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting, or `operation`'s error.
    package func run<T: Sendable>(
        priority: AssetRequest.Priority, _ operation: () async throws -> T
    ) async throws -> T {
        try await run(priority: LivePriority(priority), operation)
    }

    private func acquire(_ priority: LivePriority?) async throws {
        let id: UInt64? = state.withLock { state in
            if state.running < limit {
                state._admitOne()
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        // Observed before queueing: a change between the two finds no waiter, and the queueing below
        // reads the changed value; a change after it moves the waiter.
        let observation = priority?.addObserver { [weak self] in self?.reprioritize(id, priority) }
        defer { if let observation { priority?.removeObserver(observation) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let cancelled = state.withLock { state -> Bool in
                    // Checked under the lock: the handler either finds this waiter or it was never queued.
                    guard !Task.isCancelled else { return true }
                    if state.running < limit {
                        state._admitOne()
                        continuation.resume()
                        return false
                    }
                    let level = (priority?.value ?? .normal).rawValue
                    state.waiters.insert(continuation, id: id, level: level)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.remove(id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func reprioritize(_ id: UInt64, _ priority: LivePriority?) {
        guard let priority else { return }
        state.withLock { $0.waiters.move(id, to: priority.value.rawValue) }
    }

    private func release() {
        // The slot passes straight to the next waiter, so `running` stays counted.
        let next = state.withLock { state -> CheckedContinuation<Void, Error>? in
            if let next = state.waiters.popFirst() { return next }
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}
