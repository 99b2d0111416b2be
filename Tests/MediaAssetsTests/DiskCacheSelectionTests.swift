import Foundation
import TestSupport
import Testing

@testable import MediaAssets

@Suite("DiskCache batch removal")
struct DiskCacheSelectionTests {
    @Test func selectionAfterReopenReadsHeadersAndKeepsTheRecencyOrder() async throws {
        // Given chunks of two resources and two partitions' entries, written in a known order, and a
        // reopened cache whose index knows none of their keys or partitions
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let configuration = DiskCache.Configuration.tuned(directory: directory.url, sizeLimit: 100_000, now: clock.now)
        var cache = try DiskCache(configuration: configuration)
        let writes: [(CacheKey, LRUCacheType?)] = [
            ("old-kept", nil), ("movie#0", nil), ("movie#meta", nil), ("movie-2#0", nil),
            ("avatar", .image), ("spinner", .lottie), ("new-kept", nil),
        ]
        for (key, partition) in writes {
            clock.advance(by: 1)
            let entry = CacheEntry(data: Data(count: 10_000), metadata: .init(partition: partition))
            try await cache.store(entry, forKey: key)
        }
        await cache.close()
        cache = try DiskCache(configuration: configuration)

        // When one resource and one partition are removed
        try await cache.removeEntries(.keyPrefix("movie#"))
        try await cache.removeEntries(.partition(.image))

        // Then only those are gone, from the index and the disk
        let remaining: [CacheKey] = ["old-kept", "movie-2#0", "spinner", "new-kept"]
        #expect(await cache.statistics().count == remaining.count)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0 != ".lock" }
        #expect(Set(files) == Set(remaining.map(DiskCache.fileName(for:))))
        await cache.checkInvariants()

        // And reading the headers did not count as a use: a sweep still evicts the oldest first
        for index in 0..<6 {
            clock.advance(by: 1)
            try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: CacheKey("filler-\(index)"))
        }
        #expect(try await cache.entry(forKey: "old-kept") == nil)
        #expect(try await cache.entry(forKey: "new-kept") != nil)
    }

    @Test func partitionSurvivesReopenAndOldFilesReadAsUnpartitioned() async throws {
        // Given an entry stored through a partition, and the cache reopened
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1, 2]), metadata: .init(partition: .video)), forKey: "k")
        await cache.close()
        cache = try DiskCache(directory: directory.url)

        // Then the partition reads back
        #expect(try await cache.entry(forKey: "k")?.metadata.partition == .video)

        // And a header without a partition (the layout before partitions: the field was zero) decodes
        let file = LegacyEntryFile.encode(version: 1, key: "plain", entry: CacheEntry(data: Data([9])))
        let decoded = try file.withUnsafeBytes { try EntryFile.decodeHeader($0, fileSize: file.count) }
        #expect(decoded.metadata.partition == nil)
        #expect(file[68..<72].allSatisfy { $0 == 0 })
    }
}
