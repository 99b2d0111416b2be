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
    /// What every ask through this manager runs on: flights, downloads, staged writes, stage limiters and the
    /// executor, shared by every pipeline over it.
    package let runtime: PipelineRuntime

    /// Creates a manager with the configured memory partitions and disk cache.
    ///
    /// - Throws: `AssetsError.directoryUnavailable` or `.directoryLocked` if the disk cache cannot
    ///   be opened.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.registry = BackendRegistry()
        self.runtime = PipelineRuntime(configuration: configuration)
        for (type, limits) in configuration.memoryPartitions {
            registry.register(MemoryCache(limits: limits, now: configuration.now), for: .lru(type))
        }
        if var disk = configuration.disk {
            disk.now = configuration.now
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
    package var registeredStorageTypes: [StorageType] { registry.registeredStorageTypes }

    /// Where the pipeline reads and writes for `storageType`, resolved from the registered backend.
    func route(for storageType: StorageType) throws(AssetsError) -> StorageRoute {
        try registry.route(for: storageType)
    }

    /// The memory tier that keeps decoded objects for `storageType`, if any: the backend itself when it
    /// adopts `DecodedObjectCaching` (`.lru(t)`), or the decoded-object tier of a `TieredCaching`
    /// backend (`.hybrid(t)`). Reads of it never wait.
    package func decodedObjectCache(for storageType: StorageType) -> (any DecodedObjectCaching)? {
        (try? route(for: storageType))?.memory
    }

    // MARK: Fetching through the cache

    /// The cache key of `request`: its explicit key, else the key factory's text for its URL with its version,
    /// and the headers that may choose a representation (see `AssetRequest.headers`) as `@headers(…)`.
    public func cacheKey(for request: AssetRequest) -> CacheKey { runtime.cacheKey(for: request) }

    /// Returns the asset's entry (bytes and metadata) from the backend for `storageType`, fetching it on a miss.
    ///
    /// A fresh cached entry returns at once; a stale one is revalidated with a conditional GET (a 304
    /// keeps the bytes and refreshes the metadata), or served at once under `stale-while-revalidate`
    /// while one background request revalidates it, or served when the origin fails under
    /// `stale-if-error`. Concurrent asks for the same key, storage and cache policy share one flight,
    /// and the cache lookup runs inside it, so an ask that comes just after a flight finished reads
    /// its result instead of downloading again; asks through different storage types share the download
    /// itself, and each storage gets the bytes. A fetch is cancelled only when all askers are (a body that had
    /// arrived by then is stored all the same, within `stagedWriteLimit`), and runs at the highest priority of
    /// its askers.
    /// Transient failures are retried per `configuration.retryPolicy`. A response with
    /// `Cache-Control: no-store` is returned but not stored.
    ///
    /// The result is returned before it is written: the write runs in the background and reads see
    /// it meanwhile (`waitForPendingWrites()` awaits it). To decode, process or keep decoded objects in
    /// memory, use an `AssetPipeline` (or a util built on one): the one way to decode through the manager,
    /// which coalesces each stage by its own key.
    ///
    /// - Throws: `AssetsError.httpStatus`, `.networkFailure`, `.lengthMismatch`,
    ///   `.responseTooLarge`, `.notCached` (for `.cacheOnly`), or `CancellationError`.
    public func entry(
        for request: AssetRequest, storageType: StorageType = .disk,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> CacheEntry {
        try await runtime.entry(for: request, route: route(for: storageType), progress: progress)
    }

    /// The bytes of `entry(for:storageType:progress:)`.
    package func data(
        for request: AssetRequest, storageType: StorageType = .disk,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> Data {
        try await entry(for: request, storageType: storageType, progress: progress).data
    }

    /// A snapshot of the fetch counters.
    public var fetchStatistics: FetchStatistics { runtime.fetchStatistics }

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
        runtime.pendingWrites.drop(.init(storageType: storageType, key: key))
        try await backend(for: storageType).removeEntry(forKey: key)
    }

    // MARK: Entries (for utils)

    /// Returns the cached entry for `key` without fetching: a result still being written first, then
    /// the backend, with its metadata and any decoded object a memory backend kept.
    ///
    /// To fetch on a miss, use `entry(for:storageType:priority:progress:)`.
    package func cachedEntry(forKey key: CacheKey, storageType: StorageType) async throws -> CacheEntry? {
        let slot = PendingWrites.Slot(storageType: storageType, key: key)
        if let staged = runtime.pendingWrites.entry(for: slot, includingUnvalidated: false) { return staged }
        return try await backend(for: storageType).entry(forKey: key)
    }

    /// Returns the cached entries for `keys` in order (`nil` for each miss) without fetching: results still
    /// being written first, then the backend, which reads the rest in one go where it can.
    package func cachedEntries(forKeys keys: [CacheKey], storageType: StorageType) async throws -> [CacheEntry?] {
        var entries = keys.map {
            runtime.pendingWrites.entry(for: .init(storageType: storageType, key: $0), includingUnvalidated: false)
        }
        let missing = entries.indices.filter { entries[$0] == nil }
        guard !missing.isEmpty else { return entries }
        let stored = try await backend(for: storageType).entries(forKeys: missing.map { keys[$0] })
        for (index, entry) in zip(missing, stored) { entries[index] = entry }
        return entries
    }

    /// Stores `entry` under `key` and returns once the backend has it.
    package func store(_ entry: CacheEntry, forKey key: CacheKey, storageType: StorageType) async throws {
        runtime.pendingWrites.drop(.init(storageType: storageType, key: key))
        try await backend(for: storageType).store(entry, forKey: key)
    }

    /// Stores `entry` under `key` behind the caller's back: returns once the entry is staged (at once, unless
    /// staged writes are at `Configuration.stagedWriteLimit`: then after earlier writes made room), reads see
    /// it until the backend has it, and a failure is counted in `fetchStatistics.storeFailures`. For what a
    /// util derives beside a result (a placeholder, an index) that must not delay the result.
    ///
    /// - Throws: `AssetsError.backendNotRegistered`; `CancellationError` when the task is cancelled while it
    ///   waits for room (nothing is stored).
    package func storeInBackground(
        _ entry: CacheEntry, forKey key: CacheKey, storageType: StorageType
    ) async throws {
        try await runtime.stage(entry, forKey: key, route: try route(for: storageType), bytesOnly: false)
    }

    /// Returns once every result handed back before its write has been written (or failed to be;
    /// failures are counted in `fetchStatistics.storeFailures`), and every download whose bytes arrived after
    /// its askers left has been validated and written, or dropped. Before a process exits, call `shutdown()`,
    /// which also stops prefetches and waits for background work.
    public func waitForPendingWrites() async {
        await runtime.waitForPendingWrites()
    }

    /// The bytes of results held in memory until their backend has them (staged writes, validated or
    /// not); at most `Configuration.stagedWriteLimit`, or one entry larger than it.
    public var stagedWriteBytes: Int { runtime.pendingWrites.stagedBytes }

    // MARK: Maintenance

    /// Removes every entry of the backend for `storageType` (a memory partition or the disk cache, emptied).
    ///
    /// For `.hybrid(t)` this clears `.lru(t)` and the entries stored through `.hybrid(t)` on the
    /// shared disk; other partitions' entries there stay.
    public func removeAll(storageType: StorageType) async throws {
        runtime.pendingWrites.drop(storageType: storageType)
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

    // MARK: Shutdown

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
        await runtime.drain()
    }
}
