import Foundation
import Synchronization

/// The one owner of the flow of asks through one manager, shared by every `AssetPipeline` over it and by the
/// manager's own byte asks: the flights, the downloads and revalidations, the fetch counters, the staged
/// writes and background work, the stage limiters and the CPU executor.
///
/// A cold miss, top to bottom, in this folder:
/// ```
/// AssetPipeline.value(for:processor:…)       memory: a kept variant ─ hit: done, nothing awaited
///  └─ admitted (activeAsks) ─ process flight   (AssetPipeline+Stages: stored variant, else make it)
///      └─ variant slot ─ decode flight          memory: a kept decode covering the options
///          └─ fetch flight                      (PipelineRuntime+Fetch: staged or stored bytes, else)
///              └─ download flight               (PipelineRuntime+Download: retries outside the slots,
///                  └─ host slot ─ fetch slot     the transfer, the length checks)
///          ◄─ staged unvalidated (PendingWrites)
///      ◄─ decode slot on the executor ─ commit the staging, or discard it
///  ◄─ process slot on the executor ─ keep in memory ─ stage the variant ─ written behind the caller's back
/// ```
/// The manager appears in this flow only to route: `AssetsManager.route(for:)` names the backends a storage
/// type reads and writes (`StorageRoute`).
@usableFromInline
package final class PipelineRuntime: Sendable {
    /// The configuration of the manager that made this runtime.
    package let configuration: AssetsManager.Configuration
    /// The loader fetches go through.
    package let loader: any DataLoading
    /// Every join of the fetch and download flights, and of the pipelines' flights (`FetchStatistics.joins`).
    package let joinCounter = JoinCounter()
    /// Fetch stages under way, one per key, storage type and cache policy: each reads its own storage.
    let requestPool: RequestPool<FetchKey, FetchedOriginal>
    /// Downloads under way, one per key (and validators) whatever storage asked: a prefetch into `.disk` and
    /// a display through `.hybrid(.image)` share one.
    let downloads: RequestPool<DownloadKey, DataResponse>
    let fetchCounters = Mutex(FetchStatistics())
    /// Results returned before they were written, readable until the write is done.
    let pendingWrites: PendingWrites
    /// Background revalidations under way (stale-while-revalidate), one per key and storage type.
    let revalidations = Mutex(Set<PendingWrites.Slot>())
    /// Downloads at once, across every pipeline (`StageLimits.fetches`). A download holds a slot while it
    /// transfers, never while it waits to retry.
    package let fetchLimiter: WorkLimiter
    /// Downloads at once per host (`FetchPolicy.maxConnectionsPerHost`), if the policy bounds them.
    let hostLimiter: HostLimiter?
    /// Decodes at once, across every pipeline.
    package let decodeLimiter: WorkLimiter
    /// Processing steps at once, across every pipeline.
    package let processLimiter: WorkLimiter
    /// Variants being made at once (each from its fetch to its write), across every pipeline.
    package let variantLimiter: WorkLimiter
    /// Where decoding, processing and encoding run (`Configuration.executor`); see `runOnExecutor(_:)`.
    package let executor: any TaskExecutor
    /// Background work under way (revalidations, placeholders), which `drain()` awaits.
    let backgroundWork = BackgroundWork()
    /// Downloads every asker left, from then until their bytes are staged and validated (or dropped), which
    /// `waitForPendingWrites()` and `drain()` await.
    let keptDownloads = BackgroundWork()
    /// The prefetchers over this runtime's manager, which `drain()` stops.
    let prefetchers = PrefetcherRegistry()

    init(configuration: AssetsManager.Configuration) {
        self.configuration = configuration
        self.requestPool = RequestPool(countingJoinsIn: joinCounter)
        self.downloads = RequestPool(countingJoinsIn: joinCounter)
        self.loader = configuration.loader ?? URLSessionLoader(maxResponseSize: configuration.maxResponseSize)
        self.fetchLimiter = WorkLimiter(limit: configuration.stageLimits.fetches)
        self.hostLimiter = configuration.fetchPolicy.maxConnectionsPerHost.map(HostLimiter.init)
        self.decodeLimiter = WorkLimiter(limit: configuration.stageLimits.decodes)
        self.processLimiter = WorkLimiter(limit: configuration.stageLimits.processes)
        self.variantLimiter = WorkLimiter(limit: configuration.stageLimits.variants)
        switch configuration.executor {
        case .threads(let count, let niceness):
            self.executor = ThreadPoolExecutor(threadCount: count, niceness: niceness)
        case .custom(let executor): self.executor = executor
        }
        self.pendingWrites = PendingWrites(byteLimit: configuration.stagedWriteLimit)
    }

    /// The manager's clock.
    @usableFromInline
    package func now() -> Date { configuration.now() }

    /// The cache key of `request`: its explicit key, else the key factory's text for its URL with its version,
    /// and the headers that may choose a representation (see `AssetRequest.headers`) as `@headers(…)`.
    @usableFromInline
    package func cacheKey(for request: AssetRequest) -> CacheKey {
        if let key = request.key { return key }
        let key = CacheKey(configuration.keyFactory.key(for: request.url), version: request.version)
        return request.keyedHeadersIdentifier.map(key.variant) ?? key
    }

    /// A snapshot of the fetch counters.
    var fetchStatistics: FetchStatistics {
        var statistics = fetchCounters.withLock { $0 }
        statistics.joins = joinCounter.value
        statistics.storeFailures = pendingWrites.failureCount
        return statistics
    }

    // MARK: CPU work

    /// Runs `work` on the executor (`Configuration.executor`) and returns its result; the calling task waits
    /// without holding a thread of Swift's cooperative pool.
    ///
    /// For decoding, resampling, styling and encoding: anything that keeps a core busy for more than a few
    /// tens of microseconds. The pipeline's stages run their work here inside their limiter's slot, and a
    /// first-party util does the same for its own CPU work:
    /// ```swift
    /// let image = try await runtime.decodeLimiter.run {
    ///     try await runtime.runOnExecutor { try codecs.decode(bytes, options: options) }
    /// }
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is already cancelled (`work` does not run), or `work`'s error.
    package func runOnExecutor<T>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withTaskExecutorPreference(executor) { try work() }
    }

    // MARK: Background work

    /// Runs `operation` in a task of its own that `drain()` waits for: for what a util derives beside a result
    /// after returning it (a placeholder, a revalidation), which must not be lost when the process exits.
    package func runInBackground(
        priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async -> Void
    ) {
        backgroundWork.start(priority: priority, operation)
    }

    /// Returns once every staged write is written (or failed) and every download kept after its askers left
    /// is validated and written, or dropped.
    func waitForPendingWrites() async {
        await keptDownloads.waitUntilIdle()
        await pendingWrites.waitUntilWritten()
    }

    /// Stops every prefetch for good, then waits until background work, kept downloads and staged writes
    /// all rest (`AssetsManager.shutdown()`).
    func drain() async {
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
