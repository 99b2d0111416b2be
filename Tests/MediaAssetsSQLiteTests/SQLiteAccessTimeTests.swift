import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend access-time batches")
struct SQLiteAccessTimeTests {
    @Test func readsAreSavedInBatchesNotOneWritePerRead() async throws {
        // Given a backend that saves access times in batches of four
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(accessTimeBatchSize: 4)
        for index in 0..<4 {
            try await backend.store(CacheEntry(data: payload(index, count: 8)), forKey: CacheKey("k\(index)"))
        }

        // When three entries are read, they wait in memory
        for index in 0..<3 { _ = try await backend.entry(forKey: CacheKey("k\(index)")) }
        #expect(await backend._unsavedAccessCount() == 3)

        // Then the fourth read fills the batch and it is written (queued before the next call)
        _ = try await backend.entry(forKey: "k3")
        #expect(await backend._unsavedAccessCount() == 0)

        // And flushAccessTimes writes a partial batch
        _ = try await backend.entry(forKey: "k0")
        #expect(await backend._unsavedAccessCount() == 1)
        await backend.flushAccessTimes()
        #expect(await backend._unsavedAccessCount() == 0)
        await backend._checkInvariants()
    }
}
