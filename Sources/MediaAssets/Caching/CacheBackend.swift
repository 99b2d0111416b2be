/// A place that stores `CacheEntry`s by `CacheKey`: memory, disk, a database, a remote store.
///
/// The `AssetsManager` routes every read, write and remove to a backend chosen by `StorageType`;
/// register your own with `AssetsManager.register(_:for:)`. Backends know nothing of media types.
///
/// ## Implementation requirements
///
/// Every implementation must guarantee, and the package's conformance suite checks:
/// - **Round trip.** After `store(_:forKey:)` returns, `entry(forKey:)` returns the same bytes and
///   metadata (a byte backend may drop `CacheEntry.decoded`) until the entry is removed, replaced,
///   evicted or expired. Storing under an existing key replaces the entry. Empty data is a valid entry.
/// - **Keys are opaque.** Any string is a valid key: of any length, with `/`, `..`, NUL or emoji.
///   A key never becomes a path outside the backend's own storage.
/// - **Expiry.** An entry whose `metadata.expires` has passed is a miss.
/// - **Limits.** A backend with a size limit keeps within it by evicting (least recently used
///   first), and declines an entry larger than the limit itself, counting it in
///   `CacheStatistics.rejectedTooLarge` rather than throwing.
/// - **Failure.** A failed store throws and leaves what was cached before intact (readable, or
///   cleanly gone); a corrupt stored entry reads as a miss, never as wrong bytes.
/// - **Concurrency.** All methods may be called concurrently from any task; none blocks the
///   caller's executor on I/O for long (do file or network work off the cooperative pool).
/// - **Metadata updates.** `updateMetadata(_:forKey:)` keeps the bytes and replaces every field of the
///   metadata; an absent or expired entry answers false and nothing is stored; a read meanwhile sees
///   the old metadata or the new, never a mix of the two.
/// - **Selections.** `removeEntries(_:)` removes exactly the selected entries: a key prefix compares
///   the keys' UTF-8 bytes, a partition the entries' `metadata.partition`, an asset its key and the
///   keys derived from it (`EntrySelection.contains(key:partition:)` decides). Removing an asset is
///   one call that leaves none of its entries behind once it returns.
/// - **Pins** (optional; the defaults throw `AssetsError.unsupported`). `pin(_:)` keeps the entries a
///   `Pin` covers — stored now or later under a covered key — from eviction until `unpin(_:)`.
///   Removals still remove pinned entries and leave the pins in place; expired pinned entries are
///   misses. Pinned entries count against the backend's pinned quota: a store or a pin that would
///   pass it throws `AssetsError.pinnedQuotaExceeded` and changes nothing. `statistics()` reports
///   `pinnedCount` and `pinnedBytes`. `PinSet` holds the rules for you. A persistent backend keeps
///   its pins across restarts.
/// - **Errors.** Throw errors that say what failed and where (`AssetsError` cases fit most).
public protocol CacheBackend: Sendable {
    /// Returns the live entry for `key`, or `nil` on a miss, and marks it recently used.
    func entry(forKey key: CacheKey) async throws -> CacheEntry?

    /// Returns the live entries for `keys`, in order (`nil` for each miss): what `entry(forKey:)` returns
    /// for each, read in one go where the backend can (one hop to its I/O queue for a window of video
    /// chunks). The default asks `entry(forKey:)` key by key.
    func entries(forKeys keys: [CacheKey]) async throws -> [CacheEntry?]

    /// Stores `entry` under `key`, replacing any entry there.
    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws

    /// Replaces the metadata of the entry under `key`, keeping its bytes, and returns whether an
    /// entry was there (a miss changes nothing). A 304 revalidation refreshes an entry this way without
    /// writing its bytes again. The default reads the entry and stores it whole.
    func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool

    /// Removes the entry for `key`; removing a missing key is not an error.
    func removeEntry(forKey key: CacheKey) async throws

    /// Removes every entry.
    func removeAll() async throws

    /// Removes the entries `selection` takes (a video resource's chunks, one partition's entries)
    /// in one call, without reading their bytes. The default throws `AssetsError.unsupported`.
    func removeEntries(_ selection: EntrySelection) async throws

    /// Removes entries whose hard expiry has passed. Expired entries are already misses, so a
    /// backend may leave this as the default, which does nothing.
    func removeExpired() async throws

    /// A snapshot of the counters and current contents.
    func statistics() async -> CacheStatistics

    /// The most bytes the backend keeps, if it has a limit: utils use it to decide what is worth
    /// caching at all (a video larger than the budget plays through uncached). The default is nil.
    var byteLimit: Int? { get }

    /// Keeps the entries `pin` covers from eviction, now and when they are stored later, counting
    /// them against the pinned quota. The default throws `AssetsError.unsupported`.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` when the covered entries do not fit the quota
    ///   (nothing is pinned then).
    func pin(_ pin: Pin) async throws

    /// Removes `pin`; entries no other pin covers become evictable again. Unpinning what is not
    /// pinned is not an error. The default throws `AssetsError.unsupported`.
    func unpin(_ pin: Pin) async throws

    /// The keys of the entries stored now, in batches of about `batchSize`, each key once (a key
    /// stored or removed while the sequence runs may or may not appear). Whole-cache jobs such as
    /// the re-encryption sweep of an encrypted backend walk a backend with it. The default sequence
    /// throws `AssetsError.unsupported`.
    func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error>
}

extension CacheBackend {
    /// No limit is known.
    public var byteLimit: Int? { nil }

    /// Asks `entry(forKey:)` for each key in turn.
    public func entries(forKeys keys: [CacheKey]) async throws -> [CacheEntry?] {
        var entries: [CacheEntry?] = []
        entries.reserveCapacity(keys.count)
        for key in keys { entries.append(try await entry(forKey: key)) }
        return entries
    }

    /// Does nothing: expired entries are misses whether or not they are removed.
    public func removeExpired() async throws {}

    /// Throws `AssetsError.unsupported`: a backend that cannot select entries says so.
    public func removeEntries(_ selection: EntrySelection) async throws {
        throw AssetsError.unsupported(
            operation: "removeEntries(\(selection))", backend: String(describing: type(of: self))
        )
    }

    /// Reads the entry and stores it again with `metadata`: right for every backend, at the cost of
    /// writing its bytes again.
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        guard var entry = try await entry(forKey: key) else { return false }
        entry.metadata = metadata
        try await store(entry, forKey: key)
        return true
    }
}

/// Which entries a batch removal takes.
public enum EntrySelection: Sendable, Hashable, CustomStringConvertible {
    /// Entries whose key starts with the prefix (a video resource's chunks and record: "<key>#").
    case keyPrefix(String)
    /// Entries stored through `.hybrid(t)` for partition `t` (their `metadata.partition` is `t`).
    case partition(LRUCacheType)
    /// An asset: the entry under the key and every entry derived from it, whose key continues the
    /// asset's with `@` (a variant, a placeholder, a decoded original) or `#` (a chunk, the chunk
    /// record). A key that merely extends the asset's text with one of those characters counts as
    /// derived too (`…/logo` takes `…/logo@2x.png`): removing it costs a refetch, never wrong bytes.
    case asset(CacheKey)

    /// Whether the entry stored under `key` through `partition` (its `metadata.partition`) is selected.
    package func contains(key: CacheKey, partition: LRUCacheType?) -> Bool {
        switch self {
        case .keyPrefix(let prefix): return key.hasPrefix(prefix)
        case .partition(let selected): return partition == selected
        case .asset(let asset): return key.isDerived(fromAsset: asset)
        }
    }

    public var description: String {
        switch self {
        case .keyPrefix(let prefix): return ".keyPrefix(\"\(prefix.prefix(200))\")"
        case .partition(let partition): return ".partition(\(partition.rawValue))"
        case .asset(let asset): return ".asset(\"\(asset.rawValue.prefix(200))\")"
        }
    }
}

extension CacheBackend {
    /// Throws `AssetsError.unsupported`: a backend without pins says so.
    public func pin(_ pin: Pin) async throws {
        throw AssetsError.unsupported(operation: "pin(\(pin))", backend: String(describing: type(of: self)))
    }

    /// Throws `AssetsError.unsupported`: a backend without pins says so.
    public func unpin(_ pin: Pin) async throws {
        throw AssetsError.unsupported(operation: "unpin(\(pin))", backend: String(describing: type(of: self)))
    }

    /// A sequence that throws `AssetsError.unsupported`: a backend that cannot list its keys says so.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let backend = String(describing: type(of: self))
        return AsyncThrowingStream(unfolding: {
            throw AssetsError.unsupported(operation: "storedKeys(batchSize:)", backend: backend)
        })
    }
}

/// A snapshot of one backend's counters and current contents.
public struct CacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Reads that found a live entry.
    public var hits = 0
    /// Reads that found nothing (or an expired or corrupt entry).
    public var misses = 0
    /// Entries stored.
    public var writes = 0
    /// Entries removed by the backend to stay within its limits.
    public var evictions = 0
    /// Entries not stored because they alone exceed the backend's limits.
    public var rejectedTooLarge = 0
    /// Entries held now.
    public var count = 0
    /// The cost held now: memory backends count bytes plus decoded objects; byte backends count bytes.
    public var cost = 0
    /// The bytes of the entries held now (for disk, file sizes including headers).
    public var bytes = 0
    /// Pinned entries held now (counted in `count` too).
    public var pinnedCount = 0
    /// The bytes of the pinned entries held now, as `bytes` counts them; what the pinned quota limits.
    public var pinnedBytes = 0
    /// Operations the backend could not complete, for a backend that counts them (a remote one: commands that
    /// failed, values it found corrupt and dropped); the callers saw each as an error or a miss.
    public var errors = 0

    /// Creates an empty snapshot.
    public init() {}

    /// The fraction of reads that hit, or 0 with no reads.
    package var hitRate: Double {
        let reads = hits + misses
        return reads == 0 ? 0 : Double(hits) / Double(reads)
    }

    public var description: String {
        "hits \(hits), misses \(misses), writes \(writes), evictions \(evictions), "
            + "rejected \(rejectedTooLarge), count \(count), cost \(cost), bytes \(bytes), "
            + "pinned \(pinnedCount) (\(pinnedBytes) bytes), errors \(errors)"
    }
}
