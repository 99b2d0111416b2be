import Foundation
import MediaAssets
import MediaAssetsSQLite
import TestSupport
import Testing

@Suite("SQLiteBackend limits and expiry")
struct SQLiteEvictionTests {
    @Test func evictsLeastRecentlyUsedDownToTheLowWaterMark() async throws {
        // Given a full 1,000-byte cache of ten 100-byte entries, of which k0 was read after the rest
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try await file.open(sizeLimit: 1_000, storing: 10)
        file.clock.advance(by: 1)
        #expect(try await backend.entry(forKey: "k0") != nil)
        #expect(await backend.statistics().evictions == 0)

        // When one more entry passes the limit
        file.clock.advance(by: 1)
        try await backend.store(CacheEntry(data: payload(10, count: 100)), forKey: "k10")

        // Then the three least recently used go (down to 80 %), and the read refreshed k0
        let statistics = await backend.statistics()
        #expect(statistics.evictions == 3)
        #expect(statistics.count == 8 && statistics.bytes == 800 && statistics.cost == 800)
        #expect(try await backend.contains("k0"))
        for index in 1...3 { #expect(try await !backend.contains(CacheKey("k\(index)"))) }
        for index in 4...10 { #expect(try await backend.contains(CacheKey("k\(index)"))) }
        await backend.checkInvariants()
    }

    @Test func staysWithinTheLimitAfterEveryWrite() async throws {
        // Given a 4 KiB cache
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 4_096, accessTimeBatchSize: 8)
        var generator = SeededGenerator(seed: 7)

        for round in 0..<150 {
            // When entries of random sizes are written and read under random keys
            file.clock.advance(by: 1)
            let key = CacheKey("k\(Int.random(in: 0..<40, using: &generator))")
            let size = Int.random(in: 0...1_500, using: &generator)
            try await backend.store(CacheEntry(data: payload(round, count: size)), forKey: key)
            _ = try await backend.entry(forKey: CacheKey("k\(Int.random(in: 0..<40, using: &generator))"))

            // Then the limit holds and the entry just written is there
            #expect(await backend.statistics().bytes <= 4_096)
            #expect(try await backend.entry(forKey: key)?.data == payload(round, count: size))
            await backend.checkInvariants()
        }
        #expect(await backend.statistics().writes == 150)
        #expect(await backend.statistics().evictions > 0)
    }

    @Test func tooLargeEntryIsRejectedCountedAndDropsTheOlderOne() async throws {
        // Given a 1,000-byte cache holding an entry under "k"
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 1_000)
        try await backend.store(CacheEntry(data: payload(1, count: 10)), forKey: "k")
        try await backend.store(CacheEntry(data: payload(2, count: 10)), forKey: "other")

        // When entries larger than the whole limit are stored, under "k" and under a new key
        try await backend.store(CacheEntry(data: payload(3, count: 1_001)), forKey: "k")
        try await backend.store(CacheEntry(data: payload(4, count: 5_000)), forKey: "new")

        // Then neither is stored, both are counted, the old "k" is gone and "other" stays
        #expect(try await backend.entry(forKey: "k") == nil)
        #expect(try await backend.entry(forKey: "new") == nil)
        #expect(try await backend.entry(forKey: "other")?.data == payload(2, count: 10))
        let statistics = await backend.statistics()
        #expect(statistics.rejectedTooLarge == 2)
        #expect(statistics.writes == 2 && statistics.count == 1 && statistics.bytes == 10)

        // And an entry exactly at the limit is kept, evicting the rest
        try await backend.store(CacheEntry(data: payload(5, count: 1_000)), forKey: "exact")
        #expect(try await backend.entry(forKey: "exact")?.size == 1_000)
        #expect(await backend.statistics().count == 1)
        await backend.checkInvariants()
    }

    @Test func expiredRowIsAMissAndRemoveExpiredDeletesByDate() async throws {
        // Given entries expiring at different times
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        let start = file.clock.date
        for (key, seconds) in [("soon", 10.0), ("later", 100.0), ("exactly", 50.0)] {
            let metadata = CacheMetadata(created: start, expires: start.addingTimeInterval(seconds))
            try await backend.store(CacheEntry(data: Data(key.utf8), metadata: metadata), forKey: CacheKey(key))
        }
        try await backend.store(CacheEntry(data: Data("forever".utf8)), forKey: "forever")

        // When the clock passes "soon" and reaches "exactly"
        file.clock.advance(by: 50)

        // Then "soon" is a miss (and deleted), and removeExpired deletes "exactly" (expires <= now)
        #expect(try await backend.entry(forKey: "soon") == nil)
        #expect(await backend.statistics().count == 3)
        try await backend.removeExpired()
        let statistics = await backend.statistics()
        #expect(statistics.count == 2 && statistics.bytes == "later".utf8.count + "forever".utf8.count)
        #expect(try await backend.entry(forKey: "later") != nil)
        #expect(try await backend.entry(forKey: "forever") != nil)
        await backend.checkInvariants()
    }

    @Test func loweredLimitEvictsAtOpen() async throws {
        // Given 20 entries of 100 bytes written under a large limit
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let first = try await file.open(sizeLimit: 10_000, storing: 20)
        await first.close()

        // When the file is reopened with a 1,000-byte limit
        let second = try file.open(sizeLimit: 1_000)

        // Then the oldest go down to the low-water mark and the newest stay
        let statistics = await second.statistics()
        #expect(statistics.bytes == 800 && statistics.evictions == 12)
        for index in 12..<20 { #expect(try await second.contains(CacheKey("k\(index)"))) }
        await second.checkInvariants()
    }

    @Test func removeAllEmptiesTheFileAndTheCounts() async throws {
        // Given a cache with 1 MiB of entries
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 4 << 20)
        for index in 0..<64 {
            try await backend.store(CacheEntry(data: payload(index, count: 16_384)), forKey: CacheKey("k\(index)"))
        }
        await backend.close()
        let fullSize = try file.bytes().count
        let reopened = try file.open(sizeLimit: 4 << 20)

        // When everything is removed
        try await reopened.removeAll()
        await reopened.close()

        // Then nothing is left and the file gave its pages back
        let statistics = await (try file.open()).statistics()
        #expect(statistics.count == 0 && statistics.bytes == 0)
        #expect(try file.bytes().count < fullSize / 4)
    }
}
