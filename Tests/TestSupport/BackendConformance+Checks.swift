import Foundation
import MediaAssets
import Testing

/// The checks added with batch removal, statistics, limits and failure.
extension BackendConformance {
    func checkStatistics(_ backend: any CacheBackend) async throws {
        // Given a fresh backend, when it misses once, stores twice and hits three times
        let before = await backend.statistics()
        #expect(try await backend.entry(forKey: "absent") == nil)
        try await backend.store(CacheEntry(data: Data([1])), forKey: "one")
        try await backend.store(CacheEntry(data: Data([2, 2])), forKey: "two")
        for key: CacheKey in ["one", "two", "one"] { #expect(try await backend.entry(forKey: key) != nil) }

        // Then each is counted, and the contents are two entries
        let after = await backend.statistics()
        #expect(after.misses - before.misses == 1, "\(after)")
        #expect(after.writes - before.writes == 2, "\(after)")
        #expect(after.hits - before.hits == 3, "\(after)")
        #expect(after.count == 2 && after.bytes >= 3, "\(after)")
    }

    func checkLimits(_ backend: any CacheBackend) async throws {
        let limit = try #require(backend.byteLimit, "a limited fixture reports its limit")
        #expect(limit == Self.smallLimit)
        // Given six entries of an eighth of the limit, the first read again since
        let size = limit / 8
        for name in ["a", "b", "c", "d", "e", "f"] {
            try await backend.store(CacheEntry(data: Data(repeating: 1, count: size)), forKey: CacheKey(name))
        }
        #expect(try await backend.entry(forKey: "a") != nil)

        // When three more make nine eighths
        for name in ["g", "h", "i"] {
            try await backend.store(CacheEntry(data: Data(repeating: 2, count: size)), forKey: CacheKey(name))
        }

        // Then the least recently used went first, the recently read and the newest stayed
        let statistics = await backend.statistics()
        #expect(statistics.bytes <= limit && statistics.evictions >= 1, "\(statistics)")
        #expect(try await backend.entry(forKey: "b") == nil, "the least recently used entry is evicted")
        #expect(try await backend.entry(forKey: "a") != nil, "a recently read entry stays")
        #expect(try await backend.entry(forKey: "i") != nil, "the newest entry stays")

        // And an entry larger than the whole limit is declined without an error, and counted
        try await backend.store(CacheEntry(data: Data(count: limit + 1)), forKey: "too large")
        #expect(try await backend.entry(forKey: "too large") == nil)
        #expect(await backend.statistics().rejectedTooLarge == statistics.rejectedTooLarge + 1)
        #expect(try await backend.entry(forKey: "i") != nil, "declining it evicts nothing")
    }

    func checkFailedStore(
        _ backend: any CacheBackend, failNextStore: @Sendable (any CacheBackend, CacheKey) async throws -> Void
    ) async throws {
        // Given an entry with metadata and a neighbour
        let old = CacheEntry(data: Data("old".utf8), metadata: CacheMetadata(etag: "\"v1\"", partition: .image))
        try await backend.store(old, forKey: "k")
        try await backend.store(CacheEntry(data: Data("neighbour".utf8)), forKey: "n")
        let before = await backend.statistics()

        // When replacing it fails inside the backend
        try await failNextStore(backend, "k")
        await #expect(throws: (any Error).self) {
            let replacement = CacheEntry(data: Data("new".utf8), metadata: CacheMetadata(etag: "\"v2\""))
            try await backend.store(replacement, forKey: "k")
        }

        // Then the old entry reads back whole, the neighbour too, and nothing was counted away
        let read = try #require(try await backend.entry(forKey: "k"))
        #expect(read.data == Data("old".utf8) && read.metadata.etag == "\"v1\"" && read.metadata.partition == .image)
        #expect(try await backend.entry(forKey: "n")?.data == Data("neighbour".utf8))
        let after = await backend.statistics()
        #expect(after.count == before.count && after.bytes == before.bytes, "\(after)")
    }

    func checkRemoveByPartition(_ backend: any CacheBackend) async throws {
        // Given entries stored through two partitions and one stored directly
        let images: [CacheKey] = ["avatar-1", "avatar-2@circle"]
        let animations: [CacheKey] = ["spinner.json"]
        let direct: [CacheKey] = ["video#0"]
        for key in images {
            try await backend.store(CacheEntry(data: Data([1]), metadata: .init(partition: .image)), forKey: key)
        }
        for key in animations {
            try await backend.store(CacheEntry(data: Data([2]), metadata: .init(partition: .lottie)), forKey: key)
        }
        for key in direct { try await backend.store(CacheEntry(data: Data([3])), forKey: key) }

        // When the image partition is removed
        try await backend.removeEntries(.partition(.image))

        // Then only its entries are gone
        for key in images { #expect(try await backend.entry(forKey: key) == nil, "\(key) removed") }
        for key in animations + direct { #expect(try await backend.entry(forKey: key) != nil, "\(key) kept") }
        #expect(await backend.statistics().count == animations.count + direct.count)
    }
}
