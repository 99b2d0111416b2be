import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

@Suite("MemoryCache")
struct MemoryCacheTests {
    private func entry(_ size: Int, fill: UInt8 = 1) -> CacheEntry {
        CacheEntry(data: Data(repeating: fill, count: size))
    }

    @Test func evictsLeastRecentlyUsedByCost() throws {
        // Given a cache that fits three 100-byte entries
        let cache = MemoryCache(limits: .init(costLimit: 300))
        for name in ["a", "b", "c"] {
            try cache.store(entry(100), forKey: CacheKey(name))
            cache.checkInvariants()
        }
        // When "a" is read (becoming most recent) and "d" is added
        #expect(cache.entry(forKey: "a") != nil)
        try cache.store(entry(100), forKey: "d")
        cache.checkInvariants()

        // Then "b", the least recently used, is the one evicted
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.statistics().evictions == 1)
    }

    @Test func countLimitEvictsOldest() throws {
        let cache = MemoryCache(limits: .init(costLimit: 1 << 20, countLimit: 2))
        for name in ["a", "b", "c"] {
            try cache.store(entry(1), forKey: CacheKey(name))
            cache.checkInvariants()
        }
        #expect(cache.keysByRecency == ["c", "b"])
        #expect(cache.statistics().count == 2)
    }

    @Test func entryLargerThanLimitIsRejectedAndDropsStaleValue() throws {
        // Given a cached small value under "k"
        let cache = MemoryCache(limits: .init(costLimit: 100))
        try cache.store(entry(10), forKey: "k")
        try cache.store(entry(10), forKey: "other")

        // When a value larger than the whole limit is stored under "k"
        try cache.store(entry(101), forKey: "k")
        cache.checkInvariants()

        // Then it is not stored, the stale value is gone, others stay, and it is counted
        #expect(cache.entry(forKey: "k") == nil)
        #expect(cache.entry(forKey: "other") != nil)
        #expect(cache.statistics().rejectedTooLarge == 1)
    }

    @Test func decodedObjectCountsTowardsCost() throws {
        let cache = MemoryCache(limits: .init(costLimit: 1_000))
        let decoded = DecodedObject("a parsed model", cost: 600)
        try cache.store(CacheEntry(data: Data(count: 300), decoded: decoded), forKey: "model")
        #expect(cache.statistics().cost == 900)
        #expect(cache.statistics().bytes == 300)
        #expect(cache.entry(forKey: "model")?.decoded?.value as? String == "a parsed model")

        try cache.store(CacheEntry(data: Data(count: 200)), forKey: "bytes")
        cache.checkInvariants()
        #expect(cache.entry(forKey: "model") == nil, "900 + 200 is over the limit, so the older entry goes")
    }

    @Test func overwriteUpdatesCostAndOrder() throws {
        let cache = MemoryCache(limits: .init(costLimit: 1_000))
        try cache.store(entry(100), forKey: "a")
        try cache.store(entry(100), forKey: "b")
        try cache.store(entry(500), forKey: "a")
        cache.checkInvariants()
        #expect(cache.statistics().cost == 600)
        #expect(cache.keysByRecency == ["a", "b"])
    }

    @Test func expiredEntriesAreMisses() throws {
        // Given an entry that expires in 60 seconds
        let clock = TestClock()
        let cache = MemoryCache(limits: .init(costLimit: 1_000), now: clock.now)
        let metadata = CacheMetadata(created: clock.date, expires: clock.date + 60)
        try cache.store(CacheEntry(data: Data([1]), metadata: metadata), forKey: "k")
        #expect(cache.entry(forKey: "k") != nil)

        // When the clock passes its expiry
        clock.advance(by: 61)

        // Then it is a miss, and it is dropped
        #expect(cache.entry(forKey: "k") == nil)
        #expect(cache.statistics().count == 0)
        cache.checkInvariants()
    }

    @Test func removeExpiredAndTrim() throws {
        let clock = TestClock()
        let cache = MemoryCache(limits: .init(costLimit: 10_000), now: clock.now)
        for index in 0..<10 {
            let expires: Date? = index.isMultiple(of: 2) ? clock.date + 10 : nil
            try cache.store(
                CacheEntry(data: Data(count: 100), metadata: .init(expires: expires)), forKey: CacheKey("\(index)"))
        }
        clock.advance(by: 11)
        cache.removeExpired()
        cache.checkInvariants()
        #expect(cache.statistics().count == 5)

        cache.trim(toCost: 250)
        cache.checkInvariants()
        #expect(cache.statistics().count == 2)
        #expect(cache.keysByRecency == ["9", "7"])
    }

    @Test func randomOperationsKeepInvariants() throws {
        // A seeded random walk of stores, reads and removes, checking the structure after each.
        var generator = SeededGenerator(seed: 42)
        let cache = MemoryCache(limits: .init(costLimit: 5_000, countLimit: 40))
        for _ in 0..<3_000 {
            let key = CacheKey("k\(Int.random(in: 0..<80, using: &generator))")
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5: try cache.store(entry(Int.random(in: 0..<400, using: &generator)), forKey: key)
            case 5..<8: _ = cache.entry(forKey: key)
            case 8: cache.removeEntry(forKey: key)
            default: cache.trim(toCost: 2_500)
            }
            cache.checkInvariants()
        }
        let statistics = cache.statistics()
        #expect(statistics.cost <= 5_000 && statistics.count <= 40)
        #expect(statistics.writes > 0 && statistics.evictions > 0)
    }

    @Test func evictionCountsAreExactAtTheCountLimit() throws {
        // Given a cache limited to 5 entries
        let cache = MemoryCache(limits: .init(costLimit: 1 << 20, countLimit: 5))

        // When 12 distinct keys are stored, then 3 of the survivors are stored again
        for index in 0..<12 { try cache.store(entry(10), forKey: CacheKey("k\(index)")) }
        for index in 7..<10 { try cache.store(entry(20), forKey: CacheKey("k\(index)")) }
        cache.checkInvariants()

        // Then exactly the 7 oldest were evicted (a replaced value is no eviction), and the order
        // and cost follow the stores
        let statistics = cache.statistics()
        #expect(statistics.evictions == 7)
        #expect(statistics.writes == 15)
        #expect(statistics.count == 5)
        #expect(statistics.cost == 2 * 10 + 3 * 20)
        #expect(cache.keysByRecency == ["k9", "k8", "k7", "k11", "k10"])
    }

    @Test func oneStoreEvictingSeveralEntriesCountsAndReleasesEach() throws {
        // Given five 100-byte entries in a cache of 500 bytes, one of them holding a decoded object
        let cache = MemoryCache(limits: .init(costLimit: 500))
        let tracker = ReleaseTracker()
        for index in 0..<5 {
            let decoded = index == 1 ? DecodedObject(tracker.make(), cost: 0) : nil
            try cache.store(CacheEntry(data: Data(count: 100), decoded: decoded), forKey: CacheKey("k\(index)"))
        }

        // When a 350-byte entry arrives
        try cache.store(entry(350), forKey: "large")
        cache.checkInvariants()

        // Then the four oldest leave in one store, each counted, and none of them is kept alive
        #expect(cache.statistics().evictions == 4)
        #expect(cache.keysByRecency == ["large", "k4"])
        #expect(cache.statistics().cost == 450)
        #expect(tracker.liveCount == 0)
    }

    @Test func memoryCostFollowsTheDecodedObject() throws {
        // Given an entry whose decoded object is set after it was made
        var entry = CacheEntry(data: Data(count: 100))
        #expect(entry.memoryCost == 100)

        // When a decoded object is added and then removed
        entry.decoded = DecodedObject("model", cost: 50)
        let withObject = entry.memoryCost
        entry.decoded = nil

        // Then the cost counts it only while it is there
        #expect(withObject == 150)
        #expect(entry.memoryCost == 100)
    }
}

/// Counts live instances of the objects it makes, to see that a cache let go of them.
private final class ReleaseTracker: Sendable {
    private let live = Mutex(0)

    final class Object: Sendable {
        let tracker: ReleaseTracker

        init(tracker: ReleaseTracker) {
            self.tracker = tracker
            tracker.live.withLock { $0 += 1 }
        }

        deinit { tracker.live.withLock { $0 -= 1 } }
    }

    var liveCount: Int { live.withLock { $0 } }

    func make() -> Object { Object(tracker: self) }
}
