import Synchronization

/// An ordered list of backends, fastest first (memory → local disk → shared Redis), that acts as one.
///
/// - **Reads** ask each tier in turn; a hit is promoted into every faster tier, unless a store or
///   remove ran meanwhile (a generation counter), so a slow read never puts older bytes in front of
///   newer ones. A tier that throws on a read is counted and skipped: a
///   failing remote tier never fails a read another tier can serve.
/// - **Writes** go through to every tier, slowest first; only the first tier keeps the decoded
///   object. A failed write to a *required* tier stops the store and throws (the faster tiers keep
///   what they had); a failed write to a *best-effort* tier is counted and the store goes on, so a
///   Redis outage never stops the local tiers. A best-effort tier that missed a write may hold an
///   older value until it expires or is evicted; it is read only after the faster tiers miss.
///
/// As a `TieredCaching` backend it serves the pipeline: a first tier that keeps decoded objects (a
/// `MemoryCache`) is the memory tier, and large originals are read from and written to the tiers
/// behind it only. With a `partition`, every entry it stores carries it, and `removeAll()` removes
/// only that partition's entries from the tiers it shares.
///
/// The registry composes `.hybrid(t)` as a two-tier backend, `TieredBackend(memory: <.lru(t)>,
/// storage: <.disk>, partition: t)` — the same instances those storage types name, so a write through
/// `.hybrid(t)` is visible through `.lru(t)` and `.disk` too. Its `statistics()` counts hits of
/// either tier as `hits`; `tierCounters()[0].hits` and `[1].hits` split them into memory and storage
/// hits (a storage hit is promoted into memory). Removing an asset or pinning goes to every tier.
///
/// Configuring `.hybrid(.image)` as memory → disk → Redis:
/// ```swift
/// let memory = MemoryCache(limits: .init(costLimit: 64 << 20))
/// let tiered = TieredBackend(tiers: [.required(memory), .required(disk), .bestEffort(redis)])
/// manager.register(tiered, for: .hybrid(.image))
/// ```
public final class TieredBackend: TieredCaching {
    /// One tier: a backend and whether its write failures fail the store.
    public struct Tier: Sendable {
        /// The backend.
        package let backend: any CacheBackend
        /// Whether a failed write to this tier fails the whole store.
        package let isRequired: Bool

        /// A tier whose write failures fail the store (a local memory or disk cache).
        public static func required(_ backend: any CacheBackend) -> Tier { Tier(backend: backend, isRequired: true) }

        /// A tier whose write failures are counted and skipped (a shared remote cache).
        public static func bestEffort(_ backend: any CacheBackend) -> Tier { Tier(backend: backend, isRequired: false) }
    }

    /// What each tier did through this composition.
    public struct TierCounters: Sendable, Hashable {
        /// Reads this tier served.
        public var hits = 0
        /// Reads that threw here (counted as misses of this tier).
        public var readErrors = 0
        /// Writes (stores, removes, promotions) that threw here.
        public var writeErrors = 0
        /// Entries copied into this tier from a slower one.
        public var promotions = 0
    }

    struct State {
        var tiers: [TierCounters]
        var misses = 0
        var writes = 0
        /// Moves on every store and remove: a hit read before a change is not promoted.
        var generation: UInt64 = 0
    }

    /// The tiers, fastest first.
    package let tiers: [Tier]
    /// The partition its entries carry on shared tiers, if any.
    package let partition: LRUCacheType?
    /// The first tier when it keeps decoded objects: the pipeline's memory tier.
    public let decodedObjectTier: (any DecodedObjectCaching)?
    /// Where the byte tiers start: 1 behind a decoded-object tier, else 0.
    private let firstByteTier: Int
    let state: Mutex<State>

    /// Composes `tiers`, fastest first; entries carry `partition` when given.
    public init(tiers: [Tier], partition: LRUCacheType? = nil) {
        self.tiers = tiers
        self.partition = partition
        self.decodedObjectTier = tiers.first?.backend as? any DecodedObjectCaching
        self.firstByteTier = decodedObjectTier == nil ? 0 : 1
        self.state = Mutex(State(tiers: Array(repeating: TierCounters(), count: tiers.count)))
    }

    /// Composes `backends`, fastest first, every one required.
    package convenience init(tiers backends: [any CacheBackend], partition: LRUCacheType? = nil) {
        self.init(tiers: backends.map(Tier.required), partition: partition)
    }

    /// Composes `memory` in front of `storage`, both required, as the registry does for `.hybrid(t)`:
    /// reads fall through and promote, writes go to both, and only bytes reach `storage`.
    public convenience init(memory: any CacheBackend, storage: any CacheBackend, partition: LRUCacheType? = nil) {
        self.init(tiers: [.required(memory), .required(storage)], partition: partition)
    }

    /// Returns the first tier's live entry, promoting a slower tier's hit into the faster tiers.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        await entry(forKey: key, from: 0)
    }

    /// Returns the byte tiers' entry without promoting it into the decoded-object tier.
    public func storedEntry(forKey key: CacheKey) async throws -> CacheEntry? {
        await entry(forKey: key, from: firstByteTier)
    }

    /// Stores bytes in the byte tiers only, leaving the decoded-object tier as it is.
    public func storeBytes(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let bytesOnly = stamped(entry, bytesOnly: true)
        try await eachTier(slowestFirst: true, from: firstByteTier) { _, backend in
            try await backend.store(bytesOnly, forKey: key)
        }
        state.withLock { $0.writes += 1 }
    }

    /// `entry` with this composition's partition, and without its decoded object when `bytesOnly`.
    private func stamped(_ entry: CacheEntry, bytesOnly: Bool) -> CacheEntry {
        var stamped = entry
        if bytesOnly { stamped.decoded = nil }
        if let partition, stamped.metadata.partition != partition { stamped.metadata.partition = partition }
        return stamped
    }

    /// Reads tiers `first...` in turn, promoting a hit into the faster tiers from `first` on.
    private func entry(forKey key: CacheKey, from first: Int) async -> CacheEntry? {
        let generation = state.withLock { $0.generation }
        for (index, tier) in tiers.enumerated() where index >= first {
            let found: CacheEntry?
            do {
                found = try await tier.backend.entry(forKey: key)
            } catch {
                state.withLock { $0.tiers[index].readErrors += 1 }
                continue
            }
            guard let entry = found else { continue }
            let unchanged = state.withLock { state -> Bool in
                state.tiers[index].hits += 1
                return state.generation == generation
            }
            if unchanged { await promote(entry, forKey: key, into: index, from: first) }
            return entry
        }
        state.withLock { $0.misses += 1 }
        return nil
    }

    /// Copies a hit of tier `index` into the faster tiers, slowest first; failures are only counted.
    private func promote(_ entry: CacheEntry, forKey key: CacheKey, into index: Int, from first: Int) async {
        for faster in stride(from: index - 1, through: first, by: -1) {
            do {
                try await tiers[faster].backend.store(entry, forKey: key)
                state.withLock { $0.tiers[faster].promotions += 1 }
            } catch {
                state.withLock { $0.tiers[faster].writeErrors += 1 }
            }
        }
    }

    /// Stores the entry in every tier, slowest first; see the type's documentation for failures.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let entry = stamped(entry, bytesOnly: false)
        let bytesOnly = stamped(entry, bytesOnly: true)
        try await eachTier(slowestFirst: true) { index, backend in
            try await backend.store(index == 0 ? entry : bytesOnly, forKey: key)
        }
        state.withLock { $0.writes += 1 }
    }

    /// Replaces the entry's metadata in every tier that holds it, slowest first, keeping the bytes (and
    /// the memory tier's decoded object); returns whether any tier held it. A tier that does not stays
    /// without it, as after an eviction: reads fall through to a tier that has it. Failures count as a
    /// store's do.
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        var metadata = metadata
        if let partition { metadata.partition = partition }
        var found = false
        try await eachTier(slowestFirst: true) { [metadata] _, backend in
            if try await backend.updateMetadata(metadata, forKey: key) { found = true }
        }
        return found
    }

    /// Removes the entry from every tier, slowest first, so a concurrent read cannot bring it back.
    public func removeEntry(forKey key: CacheKey) async throws {
        try await eachTier(slowestFirst: true) { _, backend in try await backend.removeEntry(forKey: key) }
    }

    /// Removes everything from every tier (tiers may be shared with other storage types), or with a
    /// partition, empties the decoded-object tier and removes only the partition's entries elsewhere.
    public func removeAll() async throws {
        guard let partition else {
            return try await eachTier(slowestFirst: true) { _, backend in try await backend.removeAll() }
        }
        try await eachTier(slowestFirst: true) { index, backend in
            if index < firstByteTier {
                try await backend.removeAll()
            } else {
                try await backend.removeEntries(.partition(partition))
            }
        }
    }

    /// Removes the selected entries (an asset, a resource's chunks, a partition) from every tier,
    /// slowest first, so a concurrent read cannot bring one back into a faster tier.
    public func removeEntries(_ selection: EntrySelection) async throws {
        try await eachTier(slowestFirst: true) { _, backend in try await backend.removeEntries(selection) }
    }

    /// Removes expired entries from every tier.
    public func removeExpired() async throws {
        try await eachTier(slowestFirst: false) { _, backend in try await backend.removeExpired() }
    }

    /// Runs a change on every tier, moving the generation before and after; the first failure of a
    /// required tier stops it and is thrown, best-effort failures are counted.
    func eachTier(
        slowestFirst: Bool, from first: Int = 0, _ change: (Int, any CacheBackend) async throws -> Void
    ) async throws {
        state.withLock { $0.generation += 1 }
        defer { state.withLock { $0.generation += 1 } }
        let indices = Array(tiers.indices.dropFirst(first))
        let order = slowestFirst ? Array(indices.reversed()) : indices
        for index in order {
            do {
                try await change(index, tiers[index].backend)
            } catch {
                state.withLock { $0.tiers[index].writeErrors += 1 }
                if tiers[index].isRequired { throw error }
            }
        }
    }

    /// Moves the generation, so that a read under way does not promote what it found: the manager
    /// calls it before and after removing an asset from the tiers directly.
    func invalidatePromotions() {
        state.withLock { $0.generation += 1 }
    }

    /// What each tier did, fastest first: a snapshot, read like every `statistics` property.
    public var tierStatistics: [TierCounters] { state.withLock { $0.tiers } }

    /// This composition's hits (any tier), misses and writes; evictions summed over the tiers; count,
    /// bytes and pinned entries of the slowest tier (which holds the most), cost of the fastest.
    public func statistics() async -> CacheStatistics {
        var parts: [CacheStatistics] = []
        for tier in tiers { parts.append(await tier.backend.statistics()) }
        let state = state.withLock { $0 }
        var statistics = CacheStatistics()
        statistics.hits = state.tiers.reduce(0) { $0 + $1.hits }
        statistics.misses = state.misses
        statistics.writes = state.writes
        statistics.evictions = parts.reduce(0) { $0 + $1.evictions }
        statistics.rejectedTooLarge = parts.last?.rejectedTooLarge ?? 0
        statistics.count = parts.last?.count ?? 0
        statistics.bytes = parts.last?.bytes ?? 0
        statistics.pinnedCount = parts.last?.pinnedCount ?? 0
        statistics.pinnedBytes = parts.last?.pinnedBytes ?? 0
        statistics.cost = parts.first?.cost ?? 0
        return statistics
    }

    /// The slowest tier's limit that is known (what can be kept at all).
    public var byteLimit: Int? { tiers.reversed().lazy.compactMap(\.backend.byteLimit).first }
}

extension TieredBackend {
    /// Pins `pin` in every tier, slowest first. A required tier that refuses (its quota, no pins)
    /// undoes the pins already made and throws; a best-effort tier's refusal is counted.
    public func pin(_ pin: Pin) async throws {
        var pinned: [Int] = []
        do {
            try await eachTier(slowestFirst: true) { index, backend in
                try await backend.pin(pin)
                pinned.append(index)
            }
        } catch {
            for index in pinned { try? await tiers[index].backend.unpin(pin) }
            throw error
        }
    }

    /// Unpins `pin` in every tier.
    public func unpin(_ pin: Pin) async throws {
        try await eachTier(slowestFirst: true) { _, backend in try await backend.unpin(pin) }
    }

    /// The keys of the slowest tier, which holds the most.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        guard let slowest = tiers.last?.backend else { return AsyncThrowingStream { $0.finish() } }
        return slowest.storedKeys(batchSize: batchSize)
    }
}
