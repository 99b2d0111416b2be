import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend failed writes")
struct SQLiteFailureTests {
    @Test func failedStoreLeavesThePreviousEntryIntact() async throws {
        // Given an entry under "k" with metadata
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        let old = CacheEntry(data: Data("old bytes".utf8), metadata: CacheMetadata(etag: "\"v1\""))
        try await backend.store(old, forKey: "k")

        // When a replacement fails inside its transaction, after the old row was deleted
        await backend._failNextWrite()
        let error = await #expect(throws: AssetsError.self) {
            let replacement = CacheEntry(data: Data("new bytes".utf8), metadata: CacheMetadata(etag: "\"v2\""))
            try await backend.store(replacement, forKey: "k")
        }

        // Then the error says the write failed, with SQLite's reason, and the old entry is still there
        if case .writeFailed(let key, let path, let reason) = error {
            #expect(key == "k" && path == file.url.path)
            #expect(reason.contains("CHECK constraint failed"))
        } else {
            Issue.record("expected .writeFailed, got \(String(describing: error))")
        }
        let entry = try #require(try await backend.entry(forKey: "k"))
        #expect(entry.data == Data("old bytes".utf8) && entry.metadata.etag == "\"v1\"")
        let statistics = await backend.statistics()
        #expect(statistics.writes == 1 && statistics.count == 1 && statistics.bytes == 9)
        await backend.checkInvariants()

        // And the next write succeeds, and the old entry survived on disk too
        try await backend.store(CacheEntry(data: Data("newer".utf8)), forKey: "other")
        await backend.close()
        #expect(try await file.open().entry(forKey: "k")?.data == Data("old bytes".utf8))
    }

    @Test func failedStoreThatWouldEvictKeepsEveryEntry() async throws {
        // Given a full cache
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try await file.open(sizeLimit: 1_000, storing: 10)

        // When a write that needs a sweep fails
        await backend._failNextWrite()
        await #expect(throws: AssetsError.self) {
            try await backend.store(CacheEntry(data: payload(99, count: 500)), forKey: "big")
        }

        // Then nothing was evicted or lost
        let statistics = await backend.statistics()
        #expect(statistics.count == 10 && statistics.bytes == 1_000 && statistics.evictions == 0)
        for index in 0..<10 { #expect(try await backend.contains(CacheKey("k\(index)"))) }
        await backend.checkInvariants()
    }
}
