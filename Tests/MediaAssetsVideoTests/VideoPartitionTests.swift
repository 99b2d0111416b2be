import Foundation
import MediaAssets
import MediaAssetsVideo
import TestSupport
import Testing

@Suite("Video chunks beside other partitions on the shared disk")
struct VideoPartitionTests {
    @Test("removeAll(storageType: .hybrid(.image)) leaves video chunks: reading again makes no range request")
    func clearingImagesKeepsVideo() async throws {
        // Given a video read whole into chunks on the disk, and images stored through .hybrid(.image)
        let fixture = try VideoFixture(size: 5 * 4_096 + 100, chunkSize: 4_096)
        defer { fixture.tearDown() }
        let whole = try await fixture.video.data(for: fixture.url, range: 0..<fixture.source.count)
        try await fixture.manager.writeData(Data("avatar".utf8), forKey: "avatar", storageType: .hybrid(.image))
        let requests = fixture.origin.requestCount(for: fixture.path)

        // When the image storage is emptied
        try await fixture.manager.removeAll(storageType: .hybrid(.image))

        // Then the video reads back from its chunks with no new request; the image is gone
        #expect(try await fixture.video.data(for: fixture.url, range: 0..<fixture.source.count) == whole)
        #expect(fixture.origin.requestCount(for: fixture.path) == requests)
        #expect(try await fixture.manager.readData(forKey: "avatar", storageType: .disk) == nil)
    }

    @Test("remove(for:) drops a resource's chunks and record in one batch removal, leaving other resources")
    func removeIsOneBatch() async throws {
        // Given a video read whole and an entry of another resource whose key shares the text before '#'
        let fixture = try VideoFixture(size: 3 * 4_096, chunkSize: 4_096)
        defer { fixture.tearDown() }
        _ = try await fixture.video.data(for: fixture.url, range: 0..<fixture.source.count)
        let neighbour = CacheKey(fixture.key.rawValue + "-other")
        try await fixture.manager.writeData(Data("other".utf8), forKey: neighbour, storageType: .disk)
        let before = await (try fixture.manager.backend(for: .disk)).statistics()

        // When the video is removed
        try await fixture.video.remove(for: fixture.url)

        // Then its three chunks and record are gone, and the neighbour stays
        let after = await (try fixture.manager.backend(for: .disk)).statistics()
        #expect(before.count - after.count == 4)
        for index in 0..<3 { #expect(try await fixture.storedChunk(index) == nil) }
        #expect(try await fixture.manager.readData(forKey: neighbour, storageType: .disk) != nil)
    }
}
