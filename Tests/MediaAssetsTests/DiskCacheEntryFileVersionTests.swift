import Foundation
import TestSupport
import Testing

@testable import MediaAssets

/// The entry-file encoder as it was in format version 1 (a 72-byte fixed part, no stale dates),
/// kept so that tests can write the files an older release left in a cache directory.
enum VersionOneEntryFile {
    static func encode(key: CacheKey, entry: CacheEntry) -> [UInt8] {
        let metadata = entry.metadata
        let fields: [String?] = [
            key.rawValue, metadata.etag, metadata.lastModified, metadata.contentType, metadata.partition?.rawValue,
        ]
        let strings = fields.map { Array(($0 ?? "").utf8) }
        var header = [UInt8]()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        func append(_ date: Date?) { append((date?.timeIntervalSinceReferenceDate ?? .nan).bitPattern) }
        header += Array("MADC".utf8)
        append(UInt16(1))
        append(UInt16(0))
        append(UInt32(72 + strings.reduce(0) { $0 + $1.count }))
        append(UInt32(strings[0].count))
        append(UInt64(entry.data.count))
        append(UInt64(0))
        append(metadata.created as Date?)
        append(metadata.expires)
        append(metadata.freshUntil)
        for string in strings.dropFirst() { append(UInt32(string.count)) }
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
            try Data(VersionOneEntryFile.encode(key: fileKey, entry: entry)).write(to: url)
        }
        #expect(VersionOneEntryFile.encode(key: "", entry: CacheEntry(data: Data())).count == 72)

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

    @Test func storesWriteVersionTwoWithTheStaleDates() async throws {
        // Given metadata with both RFC 5861 dates
        var metadata = Self.metadata
        metadata.staleWhileRevalidateUntil = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        metadata.staleIfErrorUntil = Date(timeIntervalSinceReferenceDate: 900_000_000.75)
        let entry = CacheEntry(data: Data([7]), metadata: metadata)

        // When it is encoded
        let file = EntryFile.encodeHeader(key: "k", entry: entry) + [7]
        let header = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }

        // Then the file is version 2 with an 88-byte fixed part, and the dates decode exactly
        #expect(file[4] == 2 && file[5] == 0 && header.headerLength == 88 + 1 + 4 + 29 + 9 + 5)
        #expect(header.metadata.staleWhileRevalidateUntil == metadata.staleWhileRevalidateUntil)
        #expect(header.metadata.staleIfErrorUntil == metadata.staleIfErrorUntil)
    }

    @Test func aFileWhoseVersionDisagreesWithItsLengthsIsRejected() throws {
        // Given a version 2 file relabelled version 1, and a version 1 file relabelled version 2
        var relabelledOne = EntryFile.encodeHeader(key: "k", entry: CacheEntry(data: Data([7]))) + [7]
        relabelledOne[4] = 1
        var relabelledTwo = VersionOneEntryFile.encode(key: "k", entry: CacheEntry(data: Data([7])))
        relabelledTwo[4] = 2

        // Then neither decodes: the fixed part's length comes from the version
        for file in [relabelledOne, relabelledTwo] {
            #expect(throws: EntryFile.Corruption.self) {
                try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
            }
        }
    }
}
