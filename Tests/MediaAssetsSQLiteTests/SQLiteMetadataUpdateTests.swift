import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsSQLite

/// A 304 revalidation replaces an entry's metadata columns and leaves its bytes.
@Suite("SQLiteBackend metadata updates")
struct SQLiteMetadataUpdateTests {
    static let before = CacheMetadata(
        created: Date(timeIntervalSinceReferenceDate: 100.5), expires: Date(timeIntervalSinceReferenceDate: 9e8 + 0.5),
        freshUntil: Date(timeIntervalSinceReferenceDate: 200.5), etag: "\"v1\"", lastModified: "Mon",
        contentType: "image/png", partition: .image)
    static let after = CacheMetadata(
        created: Date(timeIntervalSinceReferenceDate: 300.25), expires: Date(timeIntervalSinceReferenceDate: 9e8 + 0.5),
        freshUntil: Date(timeIntervalSinceReferenceDate: 400.25), etag: "\"v2\"", lastModified: "Tue",
        contentType: "image/gif", staleWhileRevalidateUntil: Date(timeIntervalSinceReferenceDate: 500.75),
        staleIfErrorUntil: Date(timeIntervalSinceReferenceDate: 600.75), partition: .lottie)

    @Test func replacesTheMetadataAndKeepsTheBytes() async throws {
        // Given an entry of 256 KiB
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 4 << 20)
        let data = payload(7, count: 256 << 10)
        try await backend.store(CacheEntry(data: data, metadata: Self.before), forKey: "k")

        // When its metadata is updated
        #expect(try await backend.updateMetadata(Self.after, forKey: "k"))

        // Then the bytes are the same, every metadata field is the new one, and nothing was stored again
        let read = try #require(try await backend.entry(forKey: "k"))
        #expect(read.data == data)
        var expected = Self.after
        expected.lastAccess = read.metadata.lastAccess
        #expect(read.metadata == expected)
        let statistics = await backend.statistics()
        #expect(statistics.writes == 1 && statistics.count == 1 && statistics.bytes == 256 << 10, "\(statistics)")
        // And the partition index follows the new partition
        try await backend.removeEntries(.partition(.image))
        #expect(try await backend.entry(forKey: "k") != nil)
        try await backend.removeEntries(.partition(.lottie))
        #expect(try await backend.entry(forKey: "k") == nil)
        await backend.checkInvariants()
    }

    @Test func aMissOrAnExpiredEntryIsNotUpdated() async throws {
        // Given an entry that expires at 10 s
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        let expiring = CacheMetadata(expires: file.clock.date.addingTimeInterval(10), etag: "old")
        try await backend.store(CacheEntry(data: payload(1, count: 10), metadata: expiring), forKey: "k")

        // When a missing key is updated, then nothing is there and nothing is stored
        #expect(try await backend.updateMetadata(Self.after, forKey: "absent") == false)
        #expect(try await backend.entry(forKey: "absent") == nil)
        #expect(await backend.statistics().count == 1)

        // And once the entry has expired, an update changes nothing either
        file.clock.advance(by: 10)
        #expect(try await backend.updateMetadata(Self.after, forKey: "k") == false)
        #expect(try file.rows("SELECT etag FROM entries") == [["old"]])
    }

    @Test func anUpdateOfTheSameSizeWritesOnlyTheRowsFirstPage() async throws {
        // Given an entry of 256 KiB in a checkpointed file (no WAL)
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var backend = try file.open(sizeLimit: 4 << 20)
        try await backend.store(CacheEntry(data: payload(7, count: 256 << 10), metadata: Self.before), forKey: "k")
        await backend.close()
        backend = try file.open(sizeLimit: 4 << 20)

        // When its metadata is replaced by metadata of the same encoded size
        var revalidated = Self.before
        revalidated.etag = "\"v9\""
        revalidated.freshUntil = Date(timeIntervalSinceReferenceDate: 900.5)
        #expect(try await backend.updateMetadata(revalidated, forKey: "k"))

        // Then the WAL holds one page (16 KiB and a frame header), where a store writes 17
        let frame = (16 << 10) + 24
        #expect(try walBytes(file) == 32 + frame)
        #expect(try await backend.entry(forKey: "k")?.metadata.etag == "\"v9\"")

        // And an update that moves the expiry adds the expiry index's page to the row's
        revalidated.expires = Date(timeIntervalSinceReferenceDate: 9e8 + 60.5)
        #expect(try await backend.updateMetadata(revalidated, forKey: "k"))
        #expect(try walBytes(file) == 32 + 3 * frame)
        #expect(try await backend.entry(forKey: "k")?.metadata.expires == revalidated.expires)
    }

    private func walBytes(_ file: SQLiteTestFile) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: file.url.path + "-wal")[.size] as? Int ?? 0
    }
}
