import Synchronization

/// Warms the cache for requests an app will need soon, with a bound on concurrent fetches.
///
/// Prefetches go through the manager like any request, so they share fetches with live requests
/// for the same asset. Failures are counted, not thrown. `cancel()` stops what `start(_:)` began;
/// a `prefetch(_:)` call stops when its calling task is cancelled.
public final class Prefetcher: Sendable {
    /// The manager prefetches go through.
    public let manager: AssetsManager
    /// Where prefetched assets are stored.
    public let storageType: StorageType
    /// The most fetches a prefetch runs at once.
    public let maxConcurrentRequests: Int

    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var completed = 0
        var failed = 0
    }

    private let state = Mutex(State())

    /// Creates a prefetcher.
    public init(manager: AssetsManager, storageType: StorageType = .disk, maxConcurrentRequests: Int = 4) {
        self.manager = manager
        self.storageType = storageType
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
    }

    /// Starts prefetching `requests` in the background and returns at once; `cancel()` stops it.
    public func start(_ requests: [AssetRequest]) {
        // The task is recorded under the same lock that its own last step takes to forget it, so a
        // prefetch that finishes at once cannot leave its entry behind.
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.tasks[id] = Task(priority: .low) { [self] in
                await prefetch(requests)
                _ = self.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Prefetches `requests`, at most `maxConcurrentRequests` at a time, and returns when all are
    /// done or the calling task is cancelled.
    public func prefetch(_ requests: [AssetRequest]) async {
        await withTaskGroup(of: Bool.self) { group in
            var pending = requests.makeIterator()
            func addNext() -> Bool {
                guard !Task.isCancelled, let request = pending.next() else { return false }
                group.addTask { [self] in
                    (try? await manager.entry(for: request, storageType: storageType)) != nil
                }
                return true
            }
            for _ in 0..<maxConcurrentRequests where !addNext() { break }
            for await succeeded in group {
                state.withLock { succeeded ? ($0.completed += 1) : ($0.failed += 1) }
                _ = addNext()
            }
        }
    }

    /// Cancels every prefetch started with `start(_:)` (a fetch a live request shares goes on).
    public func cancel() {
        let tasks = state.withLock { state in
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    /// How many prefetches succeeded and failed so far.
    public var counts: (completed: Int, failed: Int) {
        state.withLock { ($0.completed, $0.failed) }
    }
}
