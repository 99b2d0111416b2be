import Foundation
import MediaAssets

/// A backend written the way an app would write its own: an actor over a dictionary that also
/// counts the calls it gets, with pins kept by the package's `PinSet`. Tests use it as the "custom
/// backend" and to observe what the manager asks of a backend.
public actor RecordingBackend: CacheBackend {
    /// How many times each operation was called.
    public struct Calls: Sendable, Equatable {
        public var reads = 0
        public var stores = 0
        public var removes = 0
        public var removeAlls = 0
        /// `removeEntries(_:)` calls (an asset, a prefix, a partition).
        public var removeSelections = 0

        /// Creates a count of calls.
        public init(reads: Int = 0, stores: Int = 0, removes: Int = 0, removeAlls: Int = 0, removeSelections: Int = 0) {
            self.reads = reads
            self.stores = stores
            self.removes = removes
            self.removeAlls = removeAlls
            self.removeSelections = removeSelections
        }
    }

    private var entries: [CacheKey: CacheEntry] = [:]
    private var stats = CacheStatistics()
    private var pins = PinSet()
    /// The most bytes pinned entries may take.
    public let pinnedQuota: Int
    /// The calls so far.
    public private(set) var calls = Calls()

    /// Creates an empty backend.
    public init(pinnedQuota: Int = .max) {
        self.pinnedQuota = pinnedQuota
    }

    private var pinnedBytes: Int {
        entries.reduce(0) { $0 + (pins.covers($1.key) ? $1.value.data.count : 0) }
    }
    public func entry(forKey key: CacheKey) -> CacheEntry? {
        calls.reads += 1
        guard let entry = entries[key], !entry.isExpired(at: Date()) else {
            stats.misses += 1
            return nil
        }
        stats.hits += 1
        return entry
    }

    public func store(_ entry: CacheEntry, forKey key: CacheKey) throws {
        if pins.covers(key) {
            let others = pinnedBytes - (entries[key]?.data.count ?? 0)
            guard others + entry.data.count <= pinnedQuota else {
                throw AssetsError.pinnedQuotaExceeded(
                    key: key, bytes: entry.data.count, pinnedBytes: others, quota: pinnedQuota)
            }
        }
        calls.stores += 1
        stats.writes += 1
        var bytesOnly = entry
        bytesOnly.decoded = nil
        entries[key] = bytesOnly
    }

    public func removeEntry(forKey key: CacheKey) {
        calls.removes += 1
        entries[key] = nil
    }

    public func removeAll() {
        calls.removeAlls += 1
        entries.removeAll()
    }

    public func removeEntries(_ selection: EntrySelection) {
        calls.removeSelections += 1
        entries = entries.filter { !selection.contains(key: $0.key, partition: $0.value.metadata.partition) }
    }

    public func pin(_ pin: Pin) throws {
        guard !pins.contains(pin) else { return }
        let added = entries.reduce(0) { $0 + (pin.covers($1.key) && !pins.covers($1.key) ? $1.value.data.count : 0) }
        guard pinnedBytes + added <= pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: pin.key, bytes: added, pinnedBytes: pinnedBytes, quota: pinnedQuota)
        }
        pins.insert(pin)
    }

    public func unpin(_ pin: Pin) {
        pins.remove(pin)
    }

    public nonisolated func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        AsyncThrowingStream { continuation in
            let producer = Task {
                let keys = await Array(self.keys)
                for start in stride(from: 0, to: keys.count, by: max(1, batchSize)) {
                    continuation.yield(Array(keys[start..<min(start + max(1, batchSize), keys.count)]))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    public func statistics() -> CacheStatistics {
        var snapshot = stats
        snapshot.count = entries.count
        snapshot.bytes = entries.values.reduce(0) { $0 + $1.data.count }
        snapshot.cost = snapshot.bytes
        snapshot.pinnedCount = entries.keys.filter(pins.covers).count
        snapshot.pinnedBytes = pinnedBytes
        return snapshot
    }

    /// The keys held now.
    public var keys: Set<CacheKey> { Set(entries.keys) }
}
