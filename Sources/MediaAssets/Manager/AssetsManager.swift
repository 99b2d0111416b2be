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
    public let registry: BackendRegistry
    /// The configuration the manager was built from.
    public let configuration: Configuration
    /// The loader fetches go through.
    public let loader: any DataLoading
    /// Fetches under way, one per key and storage type.
    let requestPool = RequestPool<FetchKey, CacheEntry>()
    let fetchCounters = Mutex(FetchStatistics())

    /// Creates a manager with the configured memory partitions and disk cache.
    ///
    /// - Throws: `AssetsError.directoryUnavailable` or `.directoryLocked` if the disk cache cannot
    ///   be opened.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.registry = BackendRegistry()
        self.loader = configuration.loader ?? URLSessionLoader(maxResponseSize: configuration.maxResponseSize)
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

    /// The backend for `storageType`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered` naming the storage type.
    public func backend(for storageType: StorageType) throws(AssetsError) -> any CacheBackend {
        try registry.backend(for: storageType)
    }

    // MARK: Bytes (the seed's API)

    /// Stores `data` under `key` in the backend for `storageType`.
    public func writeData(_ data: Data, forKey key: CacheKey, storageType: StorageType) async throws {
        let entry = CacheEntry(data: data, metadata: CacheMetadata(created: configuration.now()))
        try await backend(for: storageType).store(entry, forKey: key)
    }

    /// Returns the bytes stored under `key`, or nil on a miss.
    public func readData(forKey key: CacheKey, storageType: StorageType) async throws -> Data? {
        try await backend(for: storageType).entry(forKey: key)?.data
    }

    /// Removes the entry for `key`.
    public func removeData(forKey key: CacheKey, storageType: StorageType) async throws {
        try await backend(for: storageType).removeEntry(forKey: key)
    }

    /// Stores `data` under the key `key` (the seed's string-keyed form).
    public func writeData(_ data: Data, forKey key: String, storageType: StorageType) async throws {
        try await writeData(data, forKey: CacheKey(key), storageType: storageType)
    }

    /// Returns the bytes stored under the key `key` (the seed's string-keyed form).
    public func readData(forKey key: String, storageType: StorageType) async throws -> Data? {
        try await readData(forKey: CacheKey(key), storageType: storageType)
    }

    /// Removes the entry for the key `key` (the seed's string-keyed form).
    public func removeData(forKey key: String, storageType: StorageType) async throws {
        try await removeData(forKey: CacheKey(key), storageType: storageType)
    }

    // MARK: Entries (for utils)

    /// Returns the entry for `key`, with its metadata and any decoded object a memory backend kept.
    public func entry(forKey key: CacheKey, storageType: StorageType) async throws -> CacheEntry? {
        try await backend(for: storageType).entry(forKey: key)
    }

    /// Stores `entry` under `key`.
    public func store(_ entry: CacheEntry, forKey key: CacheKey, storageType: StorageType) async throws {
        try await backend(for: storageType).store(entry, forKey: key)
    }

    // MARK: Maintenance

    /// Removes every entry of the backend for `storageType` (SDImageCache's clearMemory/clearDisk).
    ///
    /// For `.hybrid(t)` this clears both `.lru(t)` and `.disk`.
    public func removeAll(storageType: StorageType) async throws {
        try await backend(for: storageType).removeAll()
    }

    /// Removes expired entries from every registered backend (SDImageCache's cleanDisk).
    public func removeExpired() async throws {
        for storageType in registry.registeredStorageTypes {
            try await registry.backend(for: storageType).removeExpired()
        }
    }

    /// Empties the memory partitions, for memory pressure. Persistent backends are untouched.
    public func trimMemory() async {
        for case .lru(let type) in registry.registeredStorageTypes {
            guard let backend = try? registry.backend(for: .lru(type)) else { continue }
            if let memory = backend as? MemoryCache {
                memory.trim(toCost: 0)
            } else {
                try? await backend.removeAll()
            }
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
