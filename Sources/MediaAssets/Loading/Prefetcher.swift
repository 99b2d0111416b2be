import Synchronization

/// Warms the cache for requests an app will need soon, with a bound on concurrent prefetches.
///
/// Prefetches go through the manager like any request, so they share downloads with live requests for the
/// same asset whatever storage type each names. They run at a low priority by default; a live request that
/// joins a prefetch's flight raises that flight to its own priority. At most `maxConcurrentRequests` run at
/// once per prefetcher, however many `start(_:)` calls queued them; the rest wait in the order they came.
/// Failures are counted, not thrown. `stop(_:)` stops some requests, `cancel()` all; a `prefetch(_:)` call
/// stops its requests when its calling task is cancelled. `AssetsManager.shutdown()` stops every prefetcher of
/// its manager for good.
public final class Prefetcher: Sendable {
    /// The manager prefetches go through.
    package let manager: AssetsManager
    /// Where prefetched assets are stored.
    package let storageType: StorageType
    /// The most prefetches this prefetcher runs at once.
    package let maxConcurrentRequests: Int
    /// The priority prefetches run at (a live request for the same asset raises the flight it joins).
    package let priority: AssetRequest.Priority

    /// A request queued or running, and the `prefetch(_:)` calls waiting for it.
    private struct Entry {
        let id: UInt64
        let request: AssetRequest
        var task: Task<Void, Never>?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct State {
        var entries: [AssetRequest: Entry] = [:]
        /// Requests not started yet, in the order they came (stopped ones are skipped when reached).
        var queue: [AssetRequest] = []
        var queueHead = 0
        var runningCount = 0
        var nextID: UInt64 = 0
        var completed = 0
        var failed = 0
        /// Set by the manager's shutdown: nothing starts any more.
        var isShutDown = false
        /// Callers of `stopAll()` waiting for the running prefetches to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let operation: @Sendable (AssetRequest) async throws -> Void

    /// Creates a prefetcher of `requests`' bytes into `storageType`'s byte tiers, or of whatever `operation`
    /// warms per request (a util's styled variant, say).
    ///
    /// - Parameters:
    ///   - manager: the manager prefetches go through.
    ///   - storageType: where prefetched bytes are stored (the storage the display reads).
    ///   - maxConcurrentRequests: the most prefetches running at once (at least 1).
    ///   - priority: the priority prefetches run at; `.low` by default.
    ///   - operation: warms one request; by default it fetches the bytes into `storageType`.
    public init(
        manager: AssetsManager, storageType: StorageType = .disk, maxConcurrentRequests: Int = 4,
        priority: AssetRequest.Priority = .low, operation: (@Sendable (AssetRequest) async throws -> Void)? = nil
    ) {
        self.manager = manager
        self.storageType = storageType
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
        self.priority = priority
        self.operation =
            operation ?? { request in
                try await manager.runtime.prefetchBytes(request, route: manager.route(for: storageType))
            }
        if !manager.runtime.prefetchers.add(self) { state.withLock { $0.isShutDown = true } }
    }

    /// Queues `requests` and returns at once; a request already queued or running is not queued again. Does
    /// nothing once the manager was shut down.
    public func start(_ requests: [AssetRequest]) {
        enqueue(requests)
    }

    /// Prefetches `requests` (within this prefetcher's bound) and returns when all are done or stopped, or
    /// stops them when the calling task is cancelled.
    public func prefetch(_ requests: [AssetRequest]) async {
        enqueue(requests)
        await withTaskCancellationHandler {
            for request in requests {
                let identity = Self.identity(request)
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waiting = state.withLock { state -> Bool in
                        guard state.entries[identity] != nil else { return false }
                        state.entries[identity]!.waiters.append(continuation)
                        return true
                    }
                    if !waiting { continuation.resume() }
                }
            }
        } onCancel: {
            stop(requests)
        }
    }

    /// Stops prefetching `requests`: queued ones never start, running ones are cancelled (a download a live
    /// request shares goes on for it).
    public func stop(_ requests: [AssetRequest]) {
        let stopped = state.withLock { state in
            requests.compactMap { state.entries.removeValue(forKey: Self.identity($0)) }
        }
        finish(stopped)
    }

    /// Stops every prefetch of this prefetcher.
    public func cancel() {
        let stopped = state.withLock { state in
            defer {
                state.entries.removeAll()
                state.queue.removeAll()
                state.queueHead = 0
            }
            return Array(state.entries.values)
        }
        finish(stopped)
    }

    /// Stops every prefetch for good (the manager's shutdown) and returns once none is running.
    func stopAll() async {
        state.withLock { $0.isShutDown = true }
        cancel()
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.runningCount == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// How many prefetches succeeded and failed so far (stopped ones count as neither).
    public var statistics: PrefetchStatistics {
        state.withLock { PrefetchStatistics(completed: $0.completed, failed: $0.failed) }
    }

    /// Prefetches queued or running.
    package var pendingCount: Int { state.withLock { $0.entries.count } }

    /// A request as this prefetcher tells requests apart: its priority does not matter.
    private static func identity(_ request: AssetRequest) -> AssetRequest {
        var identity = request
        identity.priority = .normal
        return identity
    }

    /// Queues the requests not queued yet and starts as many as the bound allows, in the order they came.
    private func enqueue(_ requests: [AssetRequest]) {
        state.withLock { state in
            guard !state.isShutDown else { return }
            for request in requests {
                let identity = Self.identity(request)
                guard state.entries[identity] == nil else { continue }
                state.nextID += 1
                state.entries[identity] = Entry(id: state.nextID, request: request)
                state.queue.append(identity)
            }
            _startQueued(&state)
        }
    }

    /// Starts queued requests while fewer than `maxConcurrentRequests` run. Each task is recorded under the
    /// lock its own last step takes, so a prefetch that finishes at once cannot leave its entry behind.
    private func _startQueued(_ state: inout State) {
        while state.runningCount < maxConcurrentRequests, state.queueHead < state.queue.count {
            let identity = state.queue[state.queueHead]
            state.queueHead += 1
            guard let entry = state.entries[identity], entry.task == nil else { continue }
            state.runningCount += 1
            state.entries[identity]!.task = Task(priority: priority.taskPriority) { [self] in
                await run(entry.request, identity: identity, id: entry.id)
            }
        }
        // The queue's consumed front is dropped once it outweighs the rest: O(1) amortised per request.
        if state.queueHead > 64, state.queueHead * 2 > state.queue.count {
            state.queue.removeFirst(state.queueHead)
            state.queueHead = 0
        }
    }

    private func run(_ request: AssetRequest, identity: AssetRequest, id: UInt64) async {
        var succeeded: Bool?
        do {
            try await LivePriority.$current.withValue(LivePriority(priority)) { try await operation(request) }
            succeeded = true
        } catch {
            if !(error is CancellationError) && !Task.isCancelled { succeeded = false }
        }
        let (done, idleWaiters) = state.withLock { state -> (Entry?, [CheckedContinuation<Void, Never>]) in
            state.runningCount -= 1
            var done: Entry?
            if state.entries[identity]?.id == id {
                done = state.entries.removeValue(forKey: identity)
                switch succeeded {
                case true?: state.completed += 1
                case false?: state.failed += 1
                case nil: break
                }
            }
            _startQueued(&state)
            guard state.runningCount == 0 else { return (done, []) }
            defer { state.idleWaiters = [] }
            return (done, state.idleWaiters)
        }
        if let done { finish([done]) }
        for waiter in idleWaiters { waiter.resume() }
    }

    /// Cancels the entries' tasks (a finished task's cancel does nothing) and lets their waiters go.
    private func finish(_ entries: [Entry]) {
        for entry in entries {
            entry.task?.cancel()
            for waiter in entry.waiters { waiter.resume() }
        }
    }
}

/// What a prefetcher has done so far: a snapshot, read like every util's `statistics`.
public struct PrefetchStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Prefetches that succeeded.
    public var completed = 0
    /// Prefetches that failed (a stopped one counts as neither).
    public var failed = 0

    /// Creates statistics with the given counts.
    package init(completed: Int = 0, failed: Int = 0) {
        self.completed = completed
        self.failed = failed
    }

    /// One line: completed and failed.
    public var description: String { "completed \(completed), failed \(failed)" }
}
