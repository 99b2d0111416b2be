import Foundation
import TestSupport
import Testing

@testable import MediaAssets

/// Metadata updates in place (what a 304 writes): one spare slot of the file, whole or not at all.
@Suite("DiskCache metadata updates")
struct DiskCacheMetadataTests {
    static let stale = CacheMetadata(
        created: Date(timeIntervalSinceReferenceDate: 700_000_000), freshUntil: Date(timeIntervalSinceReferenceDate: 1),
        etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", contentType: "image/jpeg", partition: .image
    )
    static let fresh = CacheMetadata(
        created: Date(timeIntervalSinceReferenceDate: 700_000_000),
        freshUntil: Date(timeIntervalSinceReferenceDate: 4_000_000_000), etag: "\"v2\"",
        lastModified: "Thu, 22 Oct 2015 07:28:00 GMT", contentType: "image/jpeg", partition: .image
    )

    private func fileURL(_ cache: DiskCache, _ key: CacheKey) -> URL {
        cache.directory.appendingPathComponent(DiskCache.fileName(for: key))
    }

    private func inode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int)
    }

    @Test func anUpdateWritesOnlyTheSpareSlotOfTheSameFile() async throws {
        // Given a 100 KB entry in a cache
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        let data = testBytes(count: 100_000, seed: 5)
        try await cache.store(CacheEntry(data: data, metadata: Self.stale), forKey: "photo")
        let url = fileURL(cache, "photo")
        let before = try [UInt8](Data(contentsOf: url))
        let inodeBefore = try inode(url)
        let slots = try #require(
            try before.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: before.count) }.slots)

        // When its metadata is updated
        #expect(try await cache.updateMetadata(Self.fresh, forKey: "photo"))

        // Then the same file changed only inside its spare slot, in the first page
        let after = try [UInt8](Data(contentsOf: url))
        #expect(try inode(url) == inodeBefore && after.count == before.count)
        let changed = after.indices.filter { after[$0] != before[$0] }
        let spare = slots.offset(of: 1 - slots.current)..<slots.offset(of: 1 - slots.current) + slots.capacity
        #expect(!changed.isEmpty && changed.allSatisfy { spare.contains($0) }, "changed \(changed.count) bytes")
        #expect(spare.upperBound <= 4_096)

        // And another instance reads the new metadata and verifies the untouched body against its checksum
        await cache.close()
        let reopened = try DiskCache(directory: directory.url)
        let read = try #require(try await reopened.entry(forKey: "photo"))
        #expect(
            read.data == data && read.metadata.etag == "\"v2\"" && read.metadata.freshUntil == Self.fresh.freshUntil)
        await reopened.close()
    }

    @Test func updatesAlternateSlotsAndTheLatestWins() async throws {
        // Given an entry
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1, 2, 3]), metadata: Self.stale), forKey: "k")
        let url = fileURL(cache, "k")

        // When its metadata is updated five times
        var currents: [Int] = []
        for round in 1...5 {
            var metadata = Self.fresh
            metadata.etag = "\"round-\(round)\""
            #expect(try await cache.updateMetadata(metadata, forKey: "k"))
            let file = try [UInt8](Data(contentsOf: url))
            let header = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
            currents.append(try #require(header.slots).current)
            #expect(header.slots?.sequence == UInt64(round + 1))
        }

        // Then the writes went to alternate slots, and the last one reads back
        #expect(currents == [1, 0, 1, 0, 1])
        #expect(try await cache.entry(forKey: "k")?.metadata.etag == "\"round-5\"")
        #expect(await cache.statistics().count == 1)
    }

    @Test func aKillAtAnyByteOfAnUpdateLeavesTheOldOrTheNewMetadata() async throws {
        // Given a file, and the slot an update would write into its spare place
        let data = testBytes(count: 3_000, seed: 6)
        let file = EntryFile.encodeHeader(key: "k", entry: CacheEntry(data: data, metadata: Self.stale)) + Array(data)
        let header = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
        let slots = try #require(header.slots)
        let slot = try #require(
            EntryFile.encodeSlot(Self.fresh, sequence: 2, capacity: slots.capacity, bodyChecksum: header.checksum))
        let spare = slots.offset(of: 1)
        // The slot is valid once its checksum and the bytes it covers are in: 16 + its used length.
        let needed = 16 + Int(slot[16]) + Int(slot[17]) << 8

        // When the write stops after any number of its bytes (a kill mid-write)
        for written in 0...slot.count {
            var torn = file
            torn.replaceSubrange(spare..<spare + written, with: slot[0..<written])

            // Then the file decodes, with the old metadata or (once the slot's used bytes are in) the new
            let decoded = try torn.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: torn.count) }
            #expect(decoded.metadata.etag == (written >= needed ? "\"v2\"" : "\"v1\""), "\(written) bytes written")
            try torn.withUnsafeBytes { bytes in
                try EntryFile.verify(
                    header: decoded, headerBytes: bytes,
                    body: UnsafeRawBufferPointer(rebasing: bytes[decoded.headerLength...]))
            }
        }

        // And a cache opening such files reads the entry, never a miss
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for written in [0, 1, 8, needed - 1, needed, slot.count - 1, slot.count] {
            var torn = file
            torn.replaceSubrange(spare..<spare + written, with: slot[0..<written])
            try Data(torn).write(to: directory.url.appendingPathComponent(DiskCache.fileName(for: "k")))
            let cache = try DiskCache(directory: directory.url)
            let read = try #require(try await cache.entry(forKey: "k"), "\(written) bytes written")
            #expect(read.data == data)
            #expect(read.metadata.etag == (written >= needed ? "\"v2\"" : "\"v1\""))
            await cache.close()
        }
    }

    @Test func aFileWithNoValidMetadataSlotIsAMissAndGoes() async throws {
        // Given an entry whose two metadata slots are both damaged on disk
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1, 2]), metadata: Self.stale), forKey: "k")
        let url = fileURL(cache, "k")
        var bytes = try [UInt8](Data(contentsOf: url))
        let slots = try #require(
            try bytes.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: bytes.count) }.slots)
        for index in 0..<2 { bytes[slots.offset(of: index) + 30] ^= 0xFF }
        try Data(bytes).write(to: url)

        // When it is read, then it is a miss, and once the write queue has decided, the file is gone
        #expect(try await cache.entry(forKey: "k") == nil)
        #expect(await cache.statistics().count == 0)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aDamagedFileIsAMissAndGoesAndMetadataTooLongForTheSlotRewritesTheFile() async throws {
        // Given two entries, one of whose bodies is then damaged on disk
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: testBytes(count: 2_000, seed: 7), metadata: Self.stale), forKey: "bad")
        try await cache.store(CacheEntry(data: Data([4, 5]), metadata: Self.stale), forKey: "good")
        let badURL = fileURL(cache, "bad")
        var bytes = try Data(contentsOf: badURL)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: badURL)

        // When metadata too long for the slots replaces each one's
        var long = Self.fresh
        long.etag = "\"" + String(repeating: "x", count: 2_000) + "\""
        let goodInode = try inode(fileURL(cache, "good"))
        let updatedBad = try await cache.updateMetadata(long, forKey: "bad")
        let updatedGood = try await cache.updateMetadata(long, forKey: "good")

        // Then the damaged one is not laundered under a new checksum: a miss, and its file is gone
        #expect(!updatedBad)
        #expect(try await cache.entry(forKey: "bad") == nil)
        #expect(!FileManager.default.fileExists(atPath: badURL.path))
        // And the good one was rewritten as a new file holding the same bytes and the long metadata
        #expect(updatedGood)
        #expect(try inode(fileURL(cache, "good")) != goodInode)
        let read = try #require(try await cache.entry(forKey: "good"))
        #expect(read.data == Data([4, 5]) && read.metadata.etag == long.etag)
        let statistics = await cache.statistics()
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: fileURL(cache, "good").path)[.size] as? Int)
        #expect(statistics.count == 1 && statistics.bytes == size, "\(statistics)")
        await cache.checkInvariants()
    }
}
