/// Where the pipeline reads and writes for one storage type, resolved from the backend registered
/// for it — never from the storage type's name, so a backend registered for `.hybrid(t)` is used as
/// registered.
///
/// - a `TieredCaching` backend: bytes through its byte tiers, decoded objects in its memory tier;
/// - a `DecodedObjectCaching` backend (`.lru(t)`): everything in it;
/// - any other backend (`.disk`, `.custom`): bytes only, every hit decoded anew.
///
/// A class, so that the stages pass one reference where they would copy four existentials.
final class StorageRoute: Sendable {
    let storageType: StorageType
    let backend: any CacheBackend
    /// Where decoded objects are kept, if anywhere.
    let memory: (any DecodedObjectCaching)?
    private let tiered: (any TieredCaching)?

    init(_ storageType: StorageType, backend: any CacheBackend) {
        self.storageType = storageType
        self.backend = backend
        if let tiered = backend as? any TieredCaching {
            self.tiered = tiered
            self.memory = tiered.decodedObjectTier
        } else {
            self.tiered = nil
            self.memory = backend as? any DecodedObjectCaching
        }
    }

    /// Whether the backend is memory only (`.lru(t)`): what memory holds is all there is.
    var isMemoryOnly: Bool { tiered == nil && memory != nil }

    /// The stored bytes of `key`, without promoting them into memory.
    func storedEntry(forKey key: CacheKey) async throws -> CacheEntry? {
        if let tiered { return try await tiered.storedEntry(forKey: key) }
        return try await backend.entry(forKey: key)
    }

    /// Stores bytes only: large originals stay out of the memory tier of a tiered backend.
    func storeBytes(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        if let tiered { return try await tiered.storeBytes(entry, forKey: key) }
        try await backend.store(entry, forKey: key)
    }

    /// Stores `entry` in every tier (a variant: bytes persisted, decoded object in memory).
    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        try await backend.store(entry, forKey: key)
    }

    /// Replaces the metadata of `key` in every tier that holds it; false if none does.
    func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        try await backend.updateMetadata(metadata, forKey: key)
    }

    /// Removes `key` from every tier.
    func remove(_ key: CacheKey) async throws {
        try await backend.removeEntry(forKey: key)
    }
}
