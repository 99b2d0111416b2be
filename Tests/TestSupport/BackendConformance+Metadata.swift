import Foundation
import MediaAssets
import Testing

/// The checks of `updateMetadata(_:forKey:)`, what a 304 revalidation calls.
extension BackendConformance {
    func checkUpdateMetadata(_ backend: any CacheBackend) async throws {
        // Given a stale entry with every field set, and a neighbour
        let data = testBytes(count: 5_000, seed: 25)
        let stale = CacheMetadata(
            created: Date(timeIntervalSince1970: 1_700_000_000.5), expires: Date(timeIntervalSinceNow: 86_400).rounded,
            freshUntil: Date(timeIntervalSinceNow: -60).rounded, etag: "\"v1\"",
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", contentType: "image/png", partition: .image
        )
        try await backend.store(CacheEntry(data: data, metadata: stale), forKey: "revalidated")
        try await backend.store(CacheEntry(data: Data("neighbour".utf8), metadata: stale), forKey: "neighbour")
        let before = await backend.statistics()

        // When a revalidation replaces its metadata
        let fresh = CacheMetadata(
            created: stale.created, expires: Date(timeIntervalSinceNow: 2 * 86_400).rounded,
            freshUntil: Date(timeIntervalSinceNow: 3_600).rounded, etag: "\"v2\"",
            lastModified: "Thu, 22 Oct 2015 07:28:00 GMT", contentType: "image/png",
            staleWhileRevalidateUntil: Date(timeIntervalSinceNow: 7_200).rounded,
            staleIfErrorUntil: Date(timeIntervalSinceNow: 9_000).rounded, partition: .image
        )
        #expect(try await backend.updateMetadata(fresh, forKey: "revalidated"))

        // Then the same bytes read back with every field of the new metadata, and nothing else changed
        let read = try #require(try await backend.entry(forKey: "revalidated"))
        #expect(read.data == data)
        Self.expectSameMetadata(read.metadata, fresh)
        let neighbour = try #require(try await backend.entry(forKey: "neighbour"))
        #expect(neighbour.data == Data("neighbour".utf8) && neighbour.metadata.etag == "\"v1\"")
        let after = await backend.statistics()
        #expect(after.count == before.count, "\(after)")

        // And metadata longer than the first (validators grow) replaces it as well
        var longer = fresh
        longer.etag = "\"" + String(repeating: "e", count: 600) + "\""
        longer.contentType = "application/vnd.example.asset+json; charset=utf-8"
        longer.partition = .lottie
        #expect(try await backend.updateMetadata(longer, forKey: "revalidated"))
        let reread = try #require(try await backend.entry(forKey: "revalidated"))
        #expect(reread.data == data)
        Self.expectSameMetadata(reread.metadata, longer)

        // And a miss changes nothing: an absent key and an expired entry both answer false
        #expect(try await !backend.updateMetadata(fresh, forKey: "absent"))
        #expect(try await backend.entry(forKey: "absent") == nil)
        let expired = CacheMetadata(expires: Date(timeIntervalSinceNow: -60))
        try await backend.store(CacheEntry(data: Data([1]), metadata: expired), forKey: "expired")
        #expect(try await !backend.updateMetadata(fresh, forKey: "expired"))
        #expect(try await backend.entry(forKey: "expired") == nil)
    }

    func checkMetadataUpdatesAreWhole(_ backend: any CacheBackend) async throws {
        // Given an entry whose metadata is replaced again and again by one of two complete versions
        let data = testBytes(count: 2_000, seed: 26)
        let versions = ["a", "b"].map { tag in
            CacheMetadata(
                etag: "\"\(tag)\"", lastModified: "last-modified-\(tag)", contentType: "image/\(tag)",
                partition: tag == "a" ? .image : .lottie
            )
        }
        try await backend.store(CacheEntry(data: data, metadata: versions[0]), forKey: "flipping")

        // When readers read it meanwhile
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 1...40 {
                    let found = try await backend.updateMetadata(versions[round % 2], forKey: "flipping")
                    #expect(found)
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<60 {
                        // Then each read holds the bytes and one version whole, never a mix of the two
                        let read = try #require(try await backend.entry(forKey: "flipping"))
                        #expect(read.data == data)
                        let tag = read.metadata.etag == "\"a\"" ? "a" : "b"
                        Self.expectSameMetadata(read.metadata, versions[tag == "a" ? 0 : 1])
                    }
                }
            }
            try await group.waitForAll()
        }
        Self.expectSameMetadata(try #require(try await backend.entry(forKey: "flipping")).metadata, versions[0])
    }

    private static func expectSameMetadata(
        _ read: CacheMetadata, _ expected: CacheMetadata, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(read.created == expected.created, sourceLocation: sourceLocation)
        #expect(read.expires == expected.expires, sourceLocation: sourceLocation)
        #expect(read.freshUntil == expected.freshUntil, sourceLocation: sourceLocation)
        #expect(read.etag == expected.etag, sourceLocation: sourceLocation)
        #expect(read.lastModified == expected.lastModified, sourceLocation: sourceLocation)
        #expect(read.contentType == expected.contentType, sourceLocation: sourceLocation)
        #expect(read.staleWhileRevalidateUntil == expected.staleWhileRevalidateUntil, sourceLocation: sourceLocation)
        #expect(read.staleIfErrorUntil == expected.staleIfErrorUntil, sourceLocation: sourceLocation)
        #expect(read.partition == expected.partition, sourceLocation: sourceLocation)
    }
}
