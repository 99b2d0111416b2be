import Foundation
import Synchronization

/// The one entry point of the package: routes every read, write and remove to the backend a
/// `StorageType` names.
///
/// A manager owns a `BackendRegistry` filled from its configuration: one `MemoryCache` per
/// memory partition (`.lru(.image)`, `.lru(.lottie)`, `.lru(.video)`), a `DiskCache` for `.disk`,
/// and `.hybrid(t)` composed of the two. Register any other backend with `register(_:for:)`.
///
/// ```swift
/// let manager = try AssetsManager()
/// try await manager.writeData(bytes, forKey: "avatar-42", storageType: .hybrid(.image))
/// let cached = try await manager.readData(forKey: "avatar-42", storageType: .lru(.image))
/// ```
public final class AssetsManager: Sendable {
    /// The backends, by storage type.
    package let registry: BackendRegistry
    /// The configuration the manager was built from.
    public let configuration: Configuration
    /// The loader fetches go through.
    public let loader: any DataLoading
    /// Every join of this manager's flights and of its pipelines' flights (`FetchStatistics.joins`).
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
    /// Downloads at once, across every pipeline of this manager (`StageLimits.fetches`). A download holds a
    /// slot while it transfers, never while it waits to retry.
    package let fetchLimiter: WorkLimiter
    /// Downloads at once per host (`FetchPolicy.maxConnectionsPerHost`), if the policy bounds them.
    let hostLimiter: HostLimiter?
    /// Decodes at once, across every pipeline of this manager.
    package let decodeLimiter: WorkLimiter
    /// Processing steps at once, across every pipeline of this manager.
    package let processLimiter: WorkLimiter
    /// Variants being made at once (each from its fetch to its write), across every pipeline of this manager.
    package let variantLimiter: WorkLimiter
    /// Where decoding, processing and encoding run (`Configuration.executor`); see `runOnExecutor(_:)`.
    package let executor: any TaskExecutor
    /// Background work under way (revalidations, placeholders), which `shutdown()` awaits.
    let backgroundWork = BackgroundWork()
    /// Downloads every asker left, from then until their bytes are staged and validated (or dropped), which
    /// `waitForPendingWrites()` and `shutdown()` await.
    let keptDownloads = BackgroundWork()
    /// The prefetchers over this manager, which `shutdown()` stops.
    let prefetchers = PrefetcherRegistry()

    /// Creates a manager with the configured memory partitions and disk cache.
    ///
    /// - Throws: `AssetsError.directoryUnavailable` or `.directoryLocked` if the disk cache cannot
    ///   be opened.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.registry = BackendRegistry()
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
        for (type, limits) in configuration.memoryPartitions {
            registry.register(MemoryCache(limits: limits, now: configuration.now), for: .lru(type))
        }
        if configuration.usesDiskCache {
            let disk = DiskCache.Configuration(
                directory: configuration.diskDirectory ?? DiskCache.defaultDirectory(),
                sizeLimit: configuration.diskSizeLimit,
                now: configuration.now
            )
            registry.register(try DiskCache(configuration: disk), for: .disk)
        }
    }

    // MARK: Backends

    /// Registers `backend` for `storageType`, replacing any backend there.
    public func register(_ backend: any CacheBackend, for storageType: StorageType) {
        registry.register(backend, for: storageType)
    }

    /// Removes the backend registered for `storageType`, if any: asks routed to it then fail with
    /// `AssetsError.backendNotRegistered`, and what it holds stays with the backend.
    public func unregister(_ storageType: StorageType) {
        registry.unregister(storageType)
    }

    /// The backend for `storageType`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered` naming the storage type and what is registered.
    public func backend(for storageType: StorageType) throws(AssetsError) -> any CacheBackend {
        try registry.backend(for: storageType)
    }

    /// The storage types with a backend registered, in a stable order (by description): what a `StorageType`
    /// may name besides the `.hybrid(t)` compositions of a registered `.lru(t)` and `.disk` (not listed).
    public var registeredStorageTypes: [StorageType] { registry.registeredStorageTypes }

    /// Where the pipeline reads and writes for `storageType`, resolved from the registered backend.
    func route(for storageType: StorageType) throws(AssetsError) -> StorageRoute {
        try registry.route(for: storageType)
    }

    /// The memory tier that keeps decoded objects for `storageType`, if any: the backend itself when it
    /// adopts `DecodedObjectCaching` (`.lru(t)`), or the decoded-object tier of a `TieredCaching`
    /// backend (`.hybrid(t)`). Reads of it never wait.
    public func decodedObjectCache(for storageType: StorageType) -> (any DecodedObjectCaching)? {
        (try? route(for: storageType))?.memory
    }

    // MARK: Bytes (the seed's API)

    /// Stores `data` under `key` in the backend for `storageType`.
    public func writeData(_ data: Data, forKey key: CacheKey, storageType: StorageType) async throws {
        let entry = CacheEntry(data: data, metadata: CacheMetadata(created: configuration.now()))
        try await store(entry, forKey: key, storageType: storageType)
    }

    /// Returns the bytes stored under `key`, or nil on a miss.
    public func readData(forKey key: CacheKey, storageType: StorageType) async throws -> Data? {
        try await cachedEntry(forKey: key, storageType: storageType)?.data
    }

    /// Removes the entry for `key`.
    public func removeData(forKey key: CacheKey, storageType: StorageType) async throws {
        pendingWrites.drop(.init(storageType: storageType, key: key))
        try await backend(for: storageType).removeEntry(forKey: key)
    }

    // MARK: Entries (for utils)

    /// Returns the cached entry for `key` without fetching: a result still being written first, then
    /// the backend, with its metadata and any decoded object a memory backend kept.
    ///
    /// To fetch on a miss, use `entry(for:storageType:priority:progress:)`.
    public func cachedEntry(forKey key: CacheKey, storageType: StorageType) async throws -> CacheEntry? {
        let slot = PendingWrites.Slot(storageType: storageType, key: key)
        if let staged = pendingWrites.entry(for: slot, includingUnvalidated: false) { return staged }
        return try await backend(for: storageType).entry(forKey: key)
    }

    /// Returns the cached entries for `keys` in order (`nil` for each miss) without fetching: results still
    /// being written first, then the backend, which reads the rest in one go where it can.
    public func cachedEntries(forKeys keys: [CacheKey], storageType: StorageType) async throws -> [CacheEntry?] {
        var entries = keys.map {
            pendingWrites.entry(for: .init(storageType: storageType, key: $0), includingUnvalidated: false)
        }
        let missing = entries.indices.filter { entries[$0] == nil }
        guard !missing.isEmpty else { return entries }
        let stored = try await backend(for: storageType).entries(forKeys: missing.map { keys[$0] })
        for (index, entry) in zip(missing, stored) { entries[index] = entry }
        return entries
    }

    /// Stores `entry` under `key` and returns once the backend has it.
    public func store(_ entry: CacheEntry, forKey key: CacheKey, storageType: StorageType) async throws {
        pendingWrites.drop(.init(storageType: storageType, key: key))
        try await backend(for: storageType).store(entry, forKey: key)
    }

    /// Stores `entry` under `key` behind the caller's back: returns once the entry is staged (at once, unless
    /// staged writes are at `Configuration.stagedWriteLimit`: then after earlier writes made room), reads see
    /// it until the backend has it, and a failure is counted in `fetchStatistics.storeFailures`. For what a
    /// util derives beside a result (a placeholder, an index) that must not delay the result.
    ///
    /// - Throws: `AssetsError.backendNotRegistered`; `CancellationError` when the task is cancelled while it
    ///   waits for room (nothing is stored).
    public func storeInBackground(
        _ entry: CacheEntry, forKey key: CacheKey, storageType: StorageType
    ) async throws {
        try await stage(entry, forKey: key, route: try route(for: storageType), bytesOnly: false)
    }

    /// Returns once every result handed back before its write has been written (or failed to be;
    /// failures are counted in `fetchStatistics.storeFailures`), and every download whose bytes arrived after
    /// its askers left has been validated and written, or dropped. Before a process exits, call `shutdown()`,
    /// which also stops prefetches and waits for background work.
    public func waitForPendingWrites() async {
        await keptDownloads.waitUntilIdle()
        await pendingWrites.waitUntilWritten()
    }

    /// The bytes of results held in memory until their backend has them (staged writes, validated or
    /// not); at most `Configuration.stagedWriteLimit`, or one entry larger than it.
    public var stagedWriteBytes: Int { pendingWrites.stagedBytes }

    // MARK: Maintenance

    /// Removes every entry of the backend for `storageType` (a memory partition or the disk cache, emptied).
    ///
    /// For `.hybrid(t)` this clears `.lru(t)` and the entries stored through `.hybrid(t)` on the
    /// shared disk; other partitions' entries there stay.
    public func removeAll(storageType: StorageType) async throws {
        pendingWrites.drop(storageType: storageType)
        try await backend(for: storageType).removeAll()
    }

    /// Removes expired entries from every registered backend.
    public func removeExpired() async throws {
        for storageType in registry.registeredStorageTypes {
            try await registry.backend(for: storageType).removeExpired()
        }
    }

    /// Empties every backend that keeps decoded objects (`DecodedObjectCaching`), for memory
    /// pressure. Persistent backends are untouched.
    public func trimMemory() async {
        for storageType in registry.registeredStorageTypes {
            decodedObjectCache(for: storageType)?.trim(toCost: 0)
        }
    }

    /// A statistics snapshot of every registered backend.
    public func statistics() async -> [StorageType: CacheStatistics] {
        var result: [StorageType: CacheStatistics] = [:]
        for storageType in registry.registeredStorageTypes {
            guard let backend = try? registry.backend(for: storageType) else { continue }
            result[storageType] = await backend.statistics()
        }
        return result
    }
}
