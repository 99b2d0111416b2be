import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsSQLite

/// Rows live at rowids from their keys' hashes (schema version 6); keys whose hashes collide share
/// a hash's 16 slots and are told apart by their stored keys.
@Suite("SQLiteBackend key slots")
struct SQLiteKeySlotTests {
    @Test func keysWhoseHashesCollideAreBothStoredAndRead() async throws {
        // Given a backend whose keys all hash alike
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(keyHash: everyKeyCollides)

        // When two keys are stored, then each reads back its own bytes, and a third key is a miss
        try await backend.store(CacheEntry(data: payload(1, count: 100)), forKey: "first")
        try await backend.store(CacheEntry(data: payload(2, count: 200)), forKey: "second")
        #expect(try await backend.entry(forKey: "first")?.data == payload(1, count: 100))
        #expect(try await backend.entry(forKey: "second")?.data == payload(2, count: 200))
        #expect(try await backend.entry(forKey: "third") == nil)

        // And after the first is removed (a gap before the second), the second still reads, and a
        // third key takes the freed slot
        try await backend.removeEntry(forKey: "first")
        #expect(try await backend.entry(forKey: "second")?.data == payload(2, count: 200))
        #expect(try await backend.entry(forKey: "first") == nil)
        try await backend.store(CacheEntry(data: payload(3, count: 300)), forKey: "third")
        #expect(try await backend.entry(forKey: "third")?.data == payload(3, count: 300))

        // And replacing a colliding key keeps one row for it
        try await backend.store(CacheEntry(data: payload(4, count: 50)), forKey: "second")
        #expect(try await backend.entry(forKey: "second")?.data == payload(4, count: 50))
        let statistics = await backend.statistics()
        #expect(statistics.count == 2 && statistics.bytes == 350, "\(statistics)")
        await backend.checkInvariants()
    }

    @Test func aKeyWhoseSlotsAreAllTakenDisplacesTheLeastRecentlyUsed() async throws {
        // Given 16 colliding keys stored a second apart, the first of them read since
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(keyHash: everyKeyCollides)
        for index in 0..<16 {
            try await backend.store(CacheEntry(data: payload(index, count: 10)), forKey: CacheKey("k\(index)"))
            file.clock.advance(by: 1)
        }
        #expect(try await backend.entry(forKey: "k0") != nil)

        // When a 17th colliding key is stored
        try await backend.store(CacheEntry(data: payload(16, count: 10)), forKey: "k16")

        // Then it takes the slot of the least recently used, k1, and every other key stays
        #expect(try await backend.entry(forKey: "k16")?.data == payload(16, count: 10))
        #expect(try await backend.entry(forKey: "k1") == nil)
        for index in [0] + Array(2..<16) {
            #expect(try await backend.entry(forKey: CacheKey("k\(index)"))?.data == payload(index, count: 10))
        }
        let statistics = await backend.statistics()
        #expect(statistics.count == 16 && statistics.evictions == 1, "\(statistics)")
        await backend.checkInvariants()
    }

    @Test func aBatchThatFillsTheSlotsFallsBackToOneStoreEach() async throws {
        // Given a backend whose keys all hash alike
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(keyHash: everyKeyCollides)

        // When 17 colliding keys are stored in one batch
        let batch = (0..<17).map { (key: CacheKey("k\($0)"), entry: CacheEntry(data: payload($0, count: 10))) }
        try await backend.storeInOneTransaction(batch)

        // Then the batch went one store at a time: the 17th displaced the first, all others read
        #expect(try await backend.entry(forKey: "k0") == nil)
        for index in 1..<17 {
            #expect(try await backend.entry(forKey: CacheKey("k\(index)"))?.data == payload(index, count: 10))
        }
        #expect(await backend.statistics().evictions == 1)
        await backend.checkInvariants()
    }

    @Test func slotsFullOfPinnedEntriesRefuseAStoreAndKeepThem() async throws {
        // Given 16 colliding keys, all pinned
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(pinnedQuota: 1 << 20, keyHash: everyKeyCollides)
        for index in 0..<16 {
            try await backend.pin(.key(CacheKey("k\(index)")))
            try await backend.store(CacheEntry(data: payload(index, count: 10)), forKey: CacheKey("k\(index)"))
        }

        // When a 17th colliding key is stored, then the store fails and names the key
        await #expect {
            try await backend.store(CacheEntry(data: payload(16, count: 10)), forKey: "k16")
        } throws: { error in
            guard case .writeFailed(let key, _, let reason) = error as? AssetsError else { return false }
            return key == "k16" && reason.contains("pinned")
        }

        // And every pinned entry is still there
        for index in 0..<16 { #expect(try await backend.entry(forKey: CacheKey("k\(index)")) != nil) }
        await backend.checkInvariants()
    }
}
