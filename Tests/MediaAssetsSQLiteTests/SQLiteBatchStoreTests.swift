import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend batch stores")
struct SQLiteBatchStoreTests {
    @Test func batchThatFitsIsStoredInOneTransaction() async throws {
        // Given an empty cache
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        try await backend.store(CacheEntry(data: payload(0, count: 5)), forKey: "k0")

        // When a batch replaces k0 and adds two more, k1 twice
        try await backend.storeInOneTransaction([
            ("k0", CacheEntry(data: payload(1, count: 10))),
            ("k1", CacheEntry(data: payload(2, count: 20))),
            ("k1", CacheEntry(data: payload(3, count: 30))),
        ])

        // Then the last entry of each key is stored, and the counts agree with the table
        #expect(try await backend.entry(forKey: "k0")?.data == payload(1, count: 10))
        #expect(try await backend.entry(forKey: "k1")?.data == payload(3, count: 30))
        let statistics = await backend.statistics()
        #expect(statistics.count == 2 && statistics.bytes == 40 && statistics.writes == 4, "\(statistics)")
        await backend.checkInvariants()
    }

    @Test func batchOverTheLimitFallsBackToOneStoreEachAndEvicts() async throws {
        // Given a 1,000-byte cache
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 1_000)

        // When a batch of twelve 100-byte entries is stored
        try await backend.storeInOneTransaction(
            (0..<12).map { (CacheKey("k\($0)"), CacheEntry(data: payload($0, count: 100))) }
        )

        // Then it stays within the limit by evicting, as single stores do
        let statistics = await backend.statistics()
        #expect(statistics.bytes <= 1_000 && statistics.evictions > 0 && statistics.writes == 12, "\(statistics)")
        #expect(try await backend.entry(forKey: "k11") != nil)
        await backend.checkInvariants()
    }
}
