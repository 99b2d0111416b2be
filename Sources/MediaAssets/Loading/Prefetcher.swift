import Synchronization

/// Warms the cache for requests an app will need soon, with a bound on concurrent prefetches.
///
/// Prefetches go through the manager like any request, so they share downloads with live requests for the
/// same asset whatever storage type each names. They run at a low priority by default; a live request that
/// joins a prefetch's flight raises that flight to its own priority. At most `maxConcurrentRequests` run at
/// once per prefetcher, however many `start(_:)` calls queued them; the rest wait in the order they came.
/// Failures are counted, not thrown. `stop(_:)` stops some requests, `cancel()` all; a `prefetch(_:)` call
/// stops its requests when its calling task is cancelled.
public final class Prefetcher: Sendable {
    /// The manager prefetches go through.
    public let manager: AssetsManager
    /// Where prefetched assets are stored.
    public let storageType: StorageType
    /// The most prefetches this prefetcher runs at once.
    public let maxConcurrentRequests: Int
    /// The priority prefetches run at (a live request for the same asset raises the flight it joins).
    public let priority: AssetRequest.Priority

    private struct Running {
        let id: UInt64
        let task: Task<Void, Never>
    }

    private struct State {
        var running: [AssetRequest: Running] = [:]
        var nextID: UInt64 = 0
        var completed = 0
        var failed = 0
    }

    private let state = Mutex(State())
    /// The per-prefetcher bound, shared by every `start(_:)` and `prefetch(_:)`.
    private let slots: WorkLimiter
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
        self.slots = WorkLimiter(limit: self.maxConcurrentRequests)
        self.operation = operation ?? { request in try await manager.prefetchBytes(request, storageType: storageType) }
    }

    /// Queues `requests` and returns at once; a request already queued or running is not queued again.
    public func start(_ requests: [AssetRequest]) {
        _ = enqueue(requests)
    }

    /// Prefetches `requests` (within this prefetcher's bound) and returns when all are done, or stops them
    /// when the calling task is cancelled.
    public func prefetch(_ requests: [AssetRequest]) async {
        let tasks = enqueue(requests)
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
        } onCancel: {
            stop(requests)
        }
    }

    /// Stops prefetching `requests`: queued ones never start, running ones are cancelled (a download a live
    /// request shares goes on for it).
    public func stop(_ requests: [AssetRequest]) {
        let stopped = state.withLock { state in
            requests.compactMap { state.running.removeValue(forKey: Self.identity($0))?.task }
        }
        for task in stopped { task.cancel() }
    }

    /// Stops every prefetch of this prefetcher.
    public func cancel() {
        let tasks = state.withLock { state in
            defer { state.running.removeAll() }
            return state.running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// How many prefetches succeeded and failed so far (stopped ones count as neither).
    public var counts: (completed: Int, failed: Int) {
        state.withLock { ($0.completed, $0.failed) }
    }

    /// Prefetches queued or running.
    public var pendingCount: Int { state.withLock { $0.running.count } }

    /// A request as this prefetcher tells requests apart: its priority does not matter.
    private static func identity(_ request: AssetRequest) -> AssetRequest {
        var identity = request
        identity.priority = .normal
        return identity
    }

    /// Starts a task per request not queued yet; returns the tasks of all `requests`.
    private func enqueue(_ requests: [AssetRequest]) -> [Task<Void, Never>] {
        // Each task is recorded under the same lock its own last step takes to forget it, so a prefetch
        // that finishes at once cannot leave its entry behind.
        state.withLock { state in
            requests.map { request in
                let identity = Self.identity(request)
                if let running = state.running[identity] { return running.task }
                state.nextID += 1
                let id = state.nextID
                let task = Task(priority: priority.taskPriority) { [self] in
                    await run(request, identity: identity, id: id)
                }
                state.running[identity] = Running(id: id, task: task)
                return task
            }
        }
    }

    private func run(_ request: AssetRequest, identity: AssetRequest, id: UInt64) async {
        var succeeded: Bool?
        do {
            try await LivePriority.$current.withValue(LivePriority(priority)) {
                try await slots.run { try await operation(request) }
            }
            succeeded = true
        } catch {
            if !(error is CancellationError) && !Task.isCancelled { succeeded = false }
        }
        state.withLock { state in
            if state.running[identity]?.id == id { state.running[identity] = nil }
            switch succeeded {
            case true?: state.completed += 1
            case false?: state.failed += 1
            case nil: break
            }
        }
    }
}
