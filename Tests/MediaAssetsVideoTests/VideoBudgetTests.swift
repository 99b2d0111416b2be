import Foundation
import MediaAssets
import MediaAssetsVideo
import TestSupport
import Testing

@Suite struct VideoBudgetTests {
    @Test func readingThroughASmallCacheEvictsWithinTheBudget() async throws {
        // Given a 4 MiB video, 64 KiB chunks, a 1 MiB disk cache, and caching forced on
        let chunk = 64 << 10
        let fixture = try VideoFixture(
            size: 4 << 20, chunkSize: chunk, seed: 11, diskSizeLimit: 1 << 20, maxCachedResourceSize: .max
        )
        defer { fixture.tearDown() }

        // When the whole video is streamed through
        let data = try await fixture.collect(fixture.video.stream(for: fixture.url, range: 0..<(4 << 20)))

        // Then the bytes are right and the disk cache kept its budget
        #expect(data == fixture.source)
        let disk = try #require(await fixture.manager.statistics()[.disk])
        #expect(disk.bytes <= 1 << 20)
        #expect(disk.evictions > 0)
        #expect(fixture.video.statistics.chunksStored == 64)

        // When the evicted head is read again
        let requests = fixture.origin.requestCount(for: fixture.path)
        let head = try await fixture.video.data(for: fixture.url, range: 0..<100)

        // Then it is fetched again, and the eviction is counted once
        #expect(head == fixture.bytes(0..<100))
        #expect(fixture.origin.requestCount(for: fixture.path) == requests + 1)
        #expect(fixture.video.statistics.chunksEvicted == 1)
    }

    @Test func aResourceLargerThanTheBudgetPlaysThroughUncached() async throws {
        // Given a 2 MiB video and a 1 MiB disk cache (the budget derived from it)
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 2 << 20, chunkSize: chunk, diskSizeLimit: 1 << 20)
        defer { fixture.tearDown() }

        // When a range is read, then streamed
        let data = try await fixture.video.data(for: fixture.url, range: 100..<300_000)
        let streamed = try await fixture.collect(fixture.video.stream(for: fixture.url, range: 70_000..<200_000))
        try await fixture.video.prefetch(for: fixture.url, byteCount: 1 << 20)

        // Then the bytes are right, exactly what was asked went over the wire (one request a window: the
        // stream's window is its read-ahead, one chunk, ending on chunk boundaries), and nothing was stored
        #expect(data == fixture.bytes(100..<300_000))
        #expect(streamed == fixture.bytes(70_000..<200_000))
        #expect(
            fixture.rangeHeaders() == [
                "bytes=0-65535", "bytes=100-299999", "bytes=70000-131071", "bytes=131072-196607",
                "bytes=196608-199999",
            ])
        let disk = try #require(await fixture.manager.statistics()[.disk])
        #expect(disk.count == 0)
        #expect(disk.writes == 0)
        #expect(fixture.video.statistics.chunksStored == 0)
    }

    @Test func chunksCanLiveInAMemoryPartition() async throws {
        // Given a util storing in the video memory partition
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 3 * chunk, chunkSize: chunk, storageType: .lru(.video))
        defer { fixture.tearDown() }

        // When a range is read twice
        let first = try await fixture.video.data(for: fixture.url, range: 10..<(3 * chunk))
        let second = try await fixture.video.data(for: fixture.url, range: 10..<(3 * chunk))

        // Then the second read came from memory, nothing went to disk
        #expect(first == fixture.bytes(10..<(3 * chunk)))
        #expect(second == first)
        #expect(fixture.origin.requestCount(for: fixture.path) == 2)
        let statistics = await fixture.manager.statistics()
        #expect(statistics[.lru(.video)]?.count == 4)
        #expect(statistics[.disk]?.count == 0)
    }
}
