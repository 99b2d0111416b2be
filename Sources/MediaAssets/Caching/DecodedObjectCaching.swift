/// A memory backend that keeps decoded objects beside the bytes and answers without waiting.
///
/// The pipeline reads a memory hit synchronously (so an avatar can be shown in the same frame it is
/// asked for) and the manager trims such backends on memory pressure. `MemoryCache` adopts it; a
/// memory backend of your own adopts it to get the same memory hits — nothing in the package downcasts
/// to `MemoryCache`.
///
/// ## Implementation requirements
/// - `cachedEntry(forKey:)` returns at once, without I/O or suspension, marks the entry recently used,
///   and treats an expired entry as a miss.
/// - `insert(_:forKey:)` and `store(_:forKey:)` keep `CacheEntry.decoded` and charge `CacheEntry.memoryCost`
///   against its limit.
/// - `trim(toCost:)` evicts least recently used entries until the total cost is at most `cost`.
public protocol DecodedObjectCaching: CacheBackend {
    /// Returns the live entry for `key` with its decoded object, or `nil`, without waiting.
    func cachedEntry(forKey key: CacheKey) -> CacheEntry?

    /// Stores `entry` with its decoded object at once, without waiting; the same as `store(_:forKey:)`.
    func insert(_ entry: CacheEntry, forKey key: CacheKey)

    /// Evicts least recently used entries until the total cost is at most `cost`; 0 empties the cache.
    func trim(toCost cost: Int)
}

/// A backend made of a decoded-object tier in front of byte tiers, such as `TieredBackend`.
///
/// The pipeline keeps large originals out of memory: it reads and writes their bytes through the
/// byte tiers only and keeps what it decoded in the memory tier. A composition registered for
/// `.hybrid(t)` — the package's or your own — is used this way; nothing assumes `.hybrid(t)` means
/// `.lru(t)` over `.disk`.
public protocol TieredCaching: CacheBackend {
    /// The tier that keeps decoded objects, if any.
    var decodedObjectTier: (any DecodedObjectCaching)? { get }

    /// Returns the entry from the byte tiers without promoting it into the decoded-object tier.
    func storedEntry(forKey key: CacheKey) async throws -> CacheEntry?

    /// Stores `entry`'s bytes and metadata in the byte tiers only (its decoded object is dropped).
    func storeBytes(_ entry: CacheEntry, forKey key: CacheKey) async throws
}
