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
        await backend.checkInvariants()
    }

    @Test func savingAccessTimesDoesNotRewriteTheEntries() async throws {
        // Given 32 entries of 16 KiB (each fills a 16 KiB page of its own), stored and checkpointed
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var backend = try file.open(sizeLimit: 8 << 20)
        for index in 0..<32 {
            try await backend.store(CacheEntry(data: payload(index, count: 16 << 10)), forKey: CacheKey("k\(index)"))
        }
        await backend.close()
        backend = try file.open(sizeLimit: 8 << 20)

        // When every entry is read and the access times are saved
        for index in 0..<32 { _ = try await backend.entry(forKey: CacheKey("k\(index)")) }
        await backend.flushAccessTimes()

        // Then the WAL holds a few pages, not one 16 KiB page per entry read
        let walBytes = try FileManager.default.attributesOfItem(atPath: file.url.path + "-wal")[.size] as? Int ?? 0
        #expect(walBytes > 0, "the times were written")
        #expect(walBytes <= 8 * (16 << 10 + 24) + 32, "WAL of \(walBytes) bytes")
        await backend.checkInvariants()
    }

    @Test func readsOfRowsSavedInTheNewerHalfRecordNothing() async throws {
        // Given entries saved at 0, 10 and 20 seconds, read at 20 (the midpoint of the span is 10)
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        for index in 0..<3 {
            try await backend.store(CacheEntry(data: payload(index, count: 8)), forKey: CacheKey("k\(index)"))
            if index < 2 { file.clock.advance(by: 10) }
        }

        // When the newest is read, nothing is recorded
        #expect(try await backend.entry(forKey: "k2") != nil)
        #expect(await backend._unsavedAccessCount() == 0)

        // Then reads of the rows at or before the midpoint are recorded
        #expect(try await backend.entry(forKey: "k1") != nil)
        #expect(try await backend.entry(forKey: "k0") != nil)
        #expect(await backend._unsavedAccessCount() == 2)

        // And once those are saved (every row now holds 20), ten seconds later k2 is in the older half
        await backend.flushAccessTimes()
        file.clock.advance(by: 10)
        #expect(try await backend.entry(forKey: "k2") != nil)
        #expect(await backend._unsavedAccessCount() == 1)
        await backend.checkInvariants()
    }
}
