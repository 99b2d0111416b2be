import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend persistence")
struct SQLitePersistenceTests {
    @Test func dataAndMetadataSurviveReopen() async throws {
        // Given entries with every metadata field, stored by a backend that is then closed
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let metadata = CacheMetadata(
            created: Date(timeIntervalSinceReferenceDate: 700_000_000.123_456_789),
            expires: Date(timeIntervalSinceReferenceDate: 900_000_000.987_654_321),
            freshUntil: Date(timeIntervalSinceReferenceDate: 800_000_100.5),
            etag: "W/\"caf\u{E9}\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", contentType: "image/png"
        )
        let first = try file.open()
        for index in 0..<30 {
            let entry = CacheEntry(data: payload(index, count: 100 + index), metadata: metadata)
            try await first.store(entry, forKey: CacheKey("k\(index)"))
        }
        try await first.store(CacheEntry(data: Data(), metadata: CacheMetadata(etag: "")), forKey: "empty")
        await first.close()

        // When a new backend opens the file
        let second = try file.open()

        // Then every entry reads back with the same bytes and exactly the same metadata
        let statistics = await second.statistics()
        #expect(statistics.count == 31)
        #expect(statistics.bytes == (0..<30).reduce(0) { $0 + 100 + $1 })
        for index in 0..<30 {
            let entry = try #require(try await second.entry(forKey: CacheKey("k\(index)")))
            #expect(entry.data == payload(index, count: 100 + index))
            #expect(entry.metadata.created == metadata.created)
            #expect(entry.metadata.expires == metadata.expires)
            #expect(entry.metadata.freshUntil == metadata.freshUntil)
            #expect(entry.metadata.etag == metadata.etag)
            #expect(entry.metadata.lastModified == metadata.lastModified)
            #expect(entry.metadata.contentType == metadata.contentType)
        }
        let empty = try #require(try await second.entry(forKey: "empty"))
        #expect(empty.data.isEmpty && empty.metadata.etag == "" && empty.metadata.contentType == nil)
        await second.checkInvariants()
    }

    @Test(arguments: ["close", "flushAccessTimes then deinit", "deinit"])
    func lastAccessOrderSurvivesReopen(ending: String) async throws {
        // Given ten 100-byte entries written one second apart, of which the three oldest are read last
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var first: SQLiteBackend? = try file.open(sizeLimit: 1_000)
        for index in 0..<10 {
            file.clock.advance(by: 1)
            try await first?.store(CacheEntry(data: payload(index, count: 100)), forKey: CacheKey("k\(index)"))
        }
        for index in 0..<3 {
            file.clock.advance(by: 1)
            #expect(try await first?.entry(forKey: CacheKey("k\(index)")) != nil)
        }
        switch ending {
        case "close": await first?.close()
        case "flushAccessTimes then deinit": await first?.flushAccessTimes()
        default: break
        }
        first = nil

        // When a reopened backend must evict to store one more entry
        let second = try file.open(sizeLimit: 1_000)
        file.clock.advance(by: 1)
        try await second.store(CacheEntry(data: payload(10, count: 100)), forKey: "k10")

        // Then the least recently used entries went (k3...k5), not the oldest written (k0...k2)
        for index in 0..<3 { #expect(try await second.contains(CacheKey("k\(index)")), "k\(index) was read last") }
        for index in 3..<6 { #expect(try await !second.contains(CacheKey("k\(index)")), "k\(index) was least recent") }
        for index in 6...10 { #expect(try await second.contains(CacheKey("k\(index)"))) }
        #expect(await second.statistics().evictions == 3)
        await second.checkInvariants()
    }

    @Test func keysDifferingAfterANulAreDistinct() async throws {
        // Given keys that a C string would cut at the NUL
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        let keys: [CacheKey] = ["a", "a\0b", "a\0c", "\0"]

        // When each is stored with its own value
        for (index, key) in keys.enumerated() {
            try await backend.store(CacheEntry(data: payload(index, count: 10)), forKey: key)
        }

        // Then each reads back its own value
        for (index, key) in keys.enumerated() {
            #expect(try await backend.entry(forKey: key)?.data == payload(index, count: 10))
        }
        #expect(await backend.statistics().count == keys.count)
    }

    @Test func closedBackendThrowsAndReleasesTheFile() async throws {
        // Given a closed backend
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        try await backend.store(CacheEntry(data: Data("kept".utf8)), forKey: "k")
        await backend.close()

        // When it is used again
        // Then it throws AssetsError.closed, and another backend can open the file and read the entry
        await #expect(throws: AssetsError.closed(path: file.url.path)) {
            try await backend.store(CacheEntry(data: Data()), forKey: "k")
        }
        await #expect(throws: AssetsError.closed(path: file.url.path)) { try await backend.entry(forKey: "k") }
        await backend.close()
        let reopened = try file.open()
        #expect(try await reopened.entry(forKey: "k")?.data == Data("kept".utf8))
    }
}
