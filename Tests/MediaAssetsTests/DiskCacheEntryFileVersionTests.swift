import Foundation
import TestSupport
import Testing

@testable import MediaAssets

/// The entry-file encoder as it was in format versions 1 (a 72-byte fixed part, no stale dates) and 2
/// (an 88-byte fixed part ending with the stale dates): one metadata block covered by one checksum of
/// header and body. Tests write with it the files an older release left in a cache directory.
enum LegacyEntryFile {
    static func encode(version: UInt16, key: CacheKey, entry: CacheEntry) -> [UInt8] {
        let metadata = entry.metadata
        let fields: [String?] = [
            key.rawValue, metadata.etag, metadata.lastModified, metadata.contentType, metadata.partition?.rawValue,
        ]
        let strings = fields.map { Array(($0 ?? "").utf8) }
        let fixedLength = version == 1 ? 72 : 88
        var header = [UInt8]()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        func append(_ date: Date?) { append((date?.timeIntervalSinceReferenceDate ?? .nan).bitPattern) }
        header += Array("MADC".utf8)
        append(version)
        append(UInt16(0))
        append(UInt32(fixedLength + strings.reduce(0) { $0 + $1.count }))
        append(UInt32(strings[0].count))
        append(UInt64(entry.data.count))
        append(UInt64(0))
        append(metadata.created as Date?)
        append(metadata.expires)
        append(metadata.freshUntil)
        for string in strings.dropFirst() { append(UInt32(string.count)) }
        if version >= 2 {
            append(metadata.staleWhileRevalidateUntil)
            append(metadata.staleIfErrorUntil)
        }
        header += strings.joined()
        let checksum = entry.data.withUnsafeBytes { body in
            XXHash64.hash(body, seed: header.withUnsafeBytes { XXHash64.hash($0) })
        }
        withUnsafeBytes(of: checksum.littleEndian) { header.replaceSubrange(24..<32, with: $0) }
        return header + Array(entry.data)
    }
}

@Suite("DiskCache entry-file format versions")
struct DiskCacheEntryFileVersionTests {
    static let metadata = CacheMetadata(
        created: Date(timeIntervalSinceReferenceDate: 700_000_000.5),
        expires: Date(timeIntervalSinceReferenceDate: 4_000_000_000),
        freshUntil: Date(timeIntervalSinceReferenceDate: 9),
        etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", contentType: "image/png", partition: .image
    )

    @Test func versionOneFilesInAnExistingCacheReadAfterTheUpgrade() async throws {
        // Given a cache directory holding files an older release wrote in format version 1: one with
        // every field set, one never read below, and the shortest possible file (empty key and body)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key: CacheKey = "https://example.com/old.png"
        let files: [(CacheKey, CacheEntry)] = [
            (key, CacheEntry(data: Data([1, 2, 3]), metadata: Self.metadata)),
            ("unread", CacheEntry(data: Data([4]), metadata: .init(partition: .image))),
            ("", CacheEntry(data: Data())),
        ]
        for (fileKey, entry) in files {
            let url = directory.url.appendingPathComponent(DiskCache.fileName(for: fileKey))
            try Data(LegacyEntryFile.encode(version: 1, key: fileKey, entry: entry)).write(to: url)
        }
        #expect(LegacyEntryFile.encode(version: 1, key: "", entry: CacheEntry(data: Data())).count == 72)

        // When the cache opens the directory and reads the keys
        let cache = try DiskCache(directory: directory.url)
        let entry = try #require(try await cache.entry(forKey: key))

        // Then the bytes and every version 1 field read back, with no stale dates
        #expect(entry.data == Data([1, 2, 3]))
        let read = entry.metadata
        #expect(read.created == Self.metadata.created && read.expires == Self.metadata.expires)
        #expect(read.freshUntil == Self.metadata.freshUntil && read.etag == Self.metadata.etag)
        #expect(read.lastModified == Self.metadata.lastModified && read.contentType == Self.metadata.contentType)
        #expect(read.partition == .image)
        #expect(read.staleWhileRevalidateUntil == nil && read.staleIfErrorUntil == nil)
        #expect(try await cache.entry(forKey: "")?.data == Data())
        // And the partition removal, which reads the header of the file the index has not seen, finds it
        try await cache.removeEntries(.partition(.image))
        #expect(try await cache.entry(forKey: key) == nil)
        #expect(try await cache.entry(forKey: "unread") == nil)
        #expect(await cache.statistics().count == 1)
        await cache.close()
    }

    @Test func versionTwoFilesReadAfterTheUpgradeAndAMetadataUpdateRewritesThemAsVersionThree() async throws {
        // Given a cache directory holding a file an older release wrote in format version 2
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var metadata = Self.metadata
        metadata.staleWhileRevalidateUntil = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        let key: CacheKey = "https://example.com/two.png"
        let url = directory.url.appendingPathComponent(DiskCache.fileName(for: key))
        try Data(
            LegacyEntryFile.encode(version: 2, key: key, entry: CacheEntry(data: Data([5, 6]), metadata: metadata))
        )
        .write(to: url)

        // When the cache reads it, then every field reads back
        let cache = try DiskCache(directory: directory.url)
        let read = try #require(try await cache.entry(forKey: key))
        #expect(read.data == Data([5, 6]) && read.metadata.etag == Self.metadata.etag)
        #expect(read.metadata.staleWhileRevalidateUntil == metadata.staleWhileRevalidateUntil)

        // And when its metadata is updated, the file is rewritten in version 3 with the new metadata
        metadata.etag = "\"v2\""
        #expect(try await cache.updateMetadata(metadata, forKey: key))
        let file = try Data(contentsOf: url)
        #expect(file[4] == 3 && file[5] == 0)
        let updated = try #require(try await cache.entry(forKey: key))
        #expect(updated.data == Data([5, 6]) && updated.metadata.etag == "\"v2\"")
        await cache.close()
    }

    @Test func storesWriteVersionThreeWithTwoMetadataSlots() throws {
        // Given metadata with both RFC 5861 dates
        var metadata = Self.metadata
        metadata.staleWhileRevalidateUntil = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        metadata.staleIfErrorUntil = Date(timeIntervalSinceReferenceDate: 900_000_000.75)
        let entry = CacheEntry(data: Data([7]), metadata: metadata)

        // When it is encoded
        let file = EntryFile.encodeHeader(key: "k", entry: entry) + [7]
        let header = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }

        // Then the file is version 3: a 40-byte fixed part, two slots with room to spare, the key, the body
        let strings = 4 + 29 + 9 + 5
        let capacity = (80 + strings + 15) / 16 * 16 + 64
        #expect(file[4] == 3 && file[5] == 0 && header.headerLength == 40 + 2 * capacity + 1)
        #expect(header.slots == EntryFile.Slots(capacity: capacity, current: 0, sequence: 1))
        #expect(header.metadata.staleWhileRevalidateUntil == metadata.staleWhileRevalidateUntil)
        #expect(header.metadata.staleIfErrorUntil == metadata.staleIfErrorUntil)
        #expect(header.metadata.etag == metadata.etag && header.metadata.partition == .image)
        try file.withUnsafeBytes { bytes in
            try EntryFile.verify(
                header: header, headerBytes: bytes,
                body: UnsafeRawBufferPointer(rebasing: bytes[header.headerLength...]))
        }
    }

    @Test func theNewerValidSlotWinsAndATornOneFallsBackToTheOther() throws {
        // Given a file whose spare slot holds newer metadata
        let entry = CacheEntry(data: Data([1, 2, 3]), metadata: Self.metadata)
        var file = EntryFile.encodeHeader(key: "k", entry: entry) + [1, 2, 3]
        let first = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
        let slots = try #require(first.slots)
        var newer = Self.metadata
        newer.etag = "\"v2\""
        let slot = try #require(
            EntryFile.encodeSlot(newer, sequence: 2, capacity: slots.capacity, bodyChecksum: first.checksum))
        file.replaceSubrange(slots.offset(of: 1)..<slots.offset(of: 1) + slots.capacity, with: slot)

        // Then it decodes with the newer slot, and the body checksum still holds
        let second = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
        #expect(second.metadata.etag == "\"v2\"" && second.slots?.current == 1 && second.checksum == first.checksum)

        // And when any byte of the newer slot is torn, the older slot is read instead
        for position in stride(from: slots.offset(of: 1), to: slots.offset(of: 1) + 80 + 4, by: 7) {
            var torn = file
            torn[position] ^= 0x5A
            let header = try torn.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: torn.count) }
            #expect(header.metadata.etag == Self.metadata.etag, "byte \(position)")
        }

        // And a slot copied from another file (another body) is not valid here
        let other = EntryFile.encodeHeader(key: "k", entry: CacheEntry(data: Data([9]), metadata: newer))
        var transplanted = file
        transplanted.replaceSubrange(
            slots.offset(of: 0)..<slots.offset(of: 0) + slots.capacity,
            with: other[slots.offset(of: 0)..<slots.offset(of: 0) + slots.capacity])
        transplanted.replaceSubrange(
            slots.offset(of: 1)..<slots.offset(of: 1) + slots.capacity, with: repeatElement(0, count: slots.capacity))
        #expect(throws: EntryFile.Corruption.noValidMetadata) {
            try transplanted.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: transplanted.count) }
        }
    }

    @Test func aFileWhoseVersionDisagreesWithItsLengthsIsRejected() throws {
        // Given each version's file relabelled as each other version
        let entry = CacheEntry(data: Data([7]))
        let files: [UInt8: [UInt8]] = [
            1: LegacyEntryFile.encode(version: 1, key: "k", entry: entry),
            2: LegacyEntryFile.encode(version: 2, key: "k", entry: entry),
            3: EntryFile.encodeHeader(key: "k", entry: entry) + [7],
        ]
        var relabelled: [[UInt8]] = []
        for (version, file) in files {
            for other: UInt8 in [1, 2, 3] where other != version {
                var copy = file
                copy[4] = other
                relabelled.append(copy)
            }
        }

        // Then none decodes: the fixed part's length comes from the version
        for file in relabelled {
            #expect(throws: EntryFile.Corruption.self) {
                try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
            }
        }
    }
}
