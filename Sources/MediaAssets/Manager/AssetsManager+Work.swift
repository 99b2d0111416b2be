import Synchronization

extension AssetsManager {
    // MARK: CPU work

    /// Runs `work` on the manager's executor (`Configuration.executor`) and returns its result; the calling
    /// task waits without holding a thread of Swift's cooperative pool.
    ///
    /// For decoding, resampling, styling and encoding: anything that keeps a core busy for more than a few
    /// tens of microseconds. The pipeline's stages run their work here inside their limiter's slot, and a util
    /// does the same for its own CPU work:
    /// ```swift
    /// let image = try await manager.decodeLimiter.run {
    ///     try await manager.runOnExecutor { try codecs.decode(bytes, options: options) }
    /// }
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is already cancelled (`work` does not run), or `work`'s error.
    package func runOnExecutor<T>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withTaskExecutorPreference(executor) { try work() }
    }

    // MARK: Background work and shutdown

    /// Runs `operation` in a task of its own that `shutdown()` waits for: for what a util derives beside a
    /// result after returning it (a placeholder, a revalidation), which must not be lost when the process
    /// exits.
    package func runInBackground(
        priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async -> Void
    ) {
        backgroundWork.start(priority: priority, operation)
    }

    /// Stops every prefetch of this manager's prefetchers, waits for background work (revalidations,
    /// placeholders, downloads kept after their askers left) and for every staged write to reach its backend.
    /// Call it before the process exits: results are returned before their bytes are written, and a process that
    /// exits right after its last ask would lose that ask's bytes.
    ///
    /// ```swift
    /// let avatar = try await images.image(for: url, style: .circle(diameter: 96))
    /// await manager.shutdown()   // the avatar's bytes are on disk; the next run reads them there
    /// ```
    ///
    /// Prefetchers stay stopped: `start` on them does nothing afterwards. Asks still work, and their writes
    /// are staged as before (call `shutdown()` again to drain them). Write failures are counted in
    /// `fetchStatistics.storeFailures`.
    public func shutdown() async {
        for prefetcher in prefetchers.shutDown() { await prefetcher.stopAll() }
        // Background work may stage writes, and a write may have been waiting for room: drain until both rest.
        repeat {
            await backgroundWork.waitUntilIdle()
            await keptDownloads.waitUntilIdle()
            await pendingWrites.waitUntilWritten()
        } while !(backgroundWork.isIdle && keptDownloads.isIdle && pendingWrites.isIdle)
    }
}

/// Tasks an `AssetsManager` runs behind its callers' backs, counted so `shutdown()` can wait for them.
final class BackgroundWork: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether no task is running.
    var isIdle: Bool { state.withLock { $0.running == 0 } }

    /// Starts `operation` in a task of its own.
    func start(priority: TaskPriority?, _ operation: @escaping @Sendable () async -> Void) {
        begin()
        Task(priority: priority) { [self] in
            await operation()
            end()
        }
    }

    /// Counts work running elsewhere (a task of another's) until `end()`.
    func begin() {
        state.withLock { $0.running += 1 }
    }

    /// Ends what `begin()` counted.
    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no task is running.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.running == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}

/// The prefetchers over one manager, held weakly, so `shutdown()` can stop them.
final class PrefetcherRegistry: Sendable {
    private struct Reference: Sendable {
        weak var prefetcher: Prefetcher?
    }

    private struct State {
        var prefetchers: [ObjectIdentifier: Reference] = [:]
        var isShutDown = false
    }

    private let state = Mutex(State())

    /// Adds `prefetcher`; returns `false` once the manager was shut down (the prefetcher then starts nothing).
    func add(_ prefetcher: Prefetcher) -> Bool {
        state.withLock { state in
            guard !state.isShutDown else { return false }
            state.prefetchers = state.prefetchers.filter { $0.value.prefetcher != nil }
            state.prefetchers[ObjectIdentifier(prefetcher)] = Reference(prefetcher: prefetcher)
            return true
        }
    }

    /// Marks the manager shut down and returns the prefetchers still alive.
    func shutDown() -> [Prefetcher] {
        state.withLock { state in
            state.isShutDown = true
            defer { state.prefetchers = [:] }
            return state.prefetchers.values.compactMap(\.prefetcher)
        }
    }
}
