import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

/// A stream (a player's read) fetches the chunk holding its position plus at most the configured read-ahead,
/// and one chunk is never fetched twice at once.
@Suite("Video read-ahead")
struct VideoReadAheadTests {
    /// Streams from `start` and stops after taking 100,000 bytes, then waits until the origin's answers ended
    /// and what they brought is stored.
    private static func seek(_ fixture: VideoFixture, to start: Int, requests: Int) async throws {
        var taken = 0
        for try await piece in fixture.video.stream(for: fixture.url, range: start..<fixture.source.count) {
            taken += piece.count
            if taken >= 100_000 { break }
        }
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: requests)
        await fixture.video.waitForPendingStores()
    }

    @Test func aSeekFetchesTheChunkItReadsAndNoWholeWindow() async throws {
        // Given an 8 MiB video of 1 MiB chunks whose length is known (the probe stored chunk 0)
        let fixture = try VideoFixture(size: 8 << 20, chunkSize: 1 << 20, seed: 81)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .normal)
        await fixture.video.waitForPendingStores()
        fixture.origin.resetLog()

        // When a player seeks to 5,300,000, takes 100,000 bytes and hangs up
        try await Self.seek(fixture, to: 5_300_000, requests: 1)

        // Then the origin was asked for chunk 5 once (the chunk read, which the default read-ahead of one
        // chunk covers) and for nothing of chunks 6 and 7 (the fetch is cancelled when the player hangs up,
        // so it may end before the chunk does)
        #expect(fixture.rangeHeaders() == ["bytes=5242880-6291455"])
        #expect(fixture.origin.requests(for: fixture.path).allSatisfy { $0.bodyBytesSent <= 1 << 20 })
    }

    @Test func aLargerReadAheadFetchesThatManyChunksAtOnce() async throws {
        // Given the same video read with a read-ahead of 2 MiB
        let fixture = try VideoFixture(size: 8 << 20, chunkSize: 1 << 20, seed: 82)
        defer { fixture.tearDown() }
        let video = VideoUtil(
            manager: fixture.manager, configuration: .init(chunkSize: 1 << 20, readAhead: 2 << 20))
        #expect(video.configuration.readAhead == 2 << 20)
        _ = try await video.contentInfo(for: fixture.url)
        await video.waitForPendingStores()
        fixture.origin.resetLog()

        // When a player seeks to 5,300,000, takes 100,000 bytes and hangs up
        var taken = 0
        for try await piece in video.stream(for: fixture.url, range: 5_300_000..<fixture.source.count) {
            taken += piece.count
            if taken >= 100_000 { break }
        }
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: 1)

        // Then one request asked for chunks 5 and 6, and none for chunk 7
        #expect(fixture.rangeHeaders() == ["bytes=5242880-7340031"])
        #expect(fixture.origin.requests(for: fixture.path).allSatisfy { $0.bodyBytesSent <= 2 << 20 })
    }

    @Test func eightReadersOfOneChunkAtOnceShareOneFetch() async throws {
        // Given a 4 MiB video of 1 MiB chunks whose length is known, on a gated origin
        let fixture = try VideoFixture(size: 4 << 20, chunkSize: 1 << 20, seed: 84)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(gated: true))
        await fixture.video.waitForPendingStores()
        fixture.origin.resetLog()

        // When eight readers ask for parts of chunk 2 at once, held at the gate until all have joined
        let parts = (0..<8).map { 2_097_152 + $0 * 100_000..<2_097_152 + $0 * 100_000 + 50_000 }
        let reads = parts.map { part in Task { try await fixture.video.data(for: fixture.url, range: part) } }
        try await waitUntil("seven readers to join the first one's fetch") {
            fixture.video.statistics.fetchesJoined == 7
        }
        fixture.origin.setBehavior(fixture.path, .normal)

        // Then each got its bytes from one request for chunk 2
        for (read, part) in zip(reads, parts) { #expect(try await read.value == fixture.bytes(part)) }
        #expect(fixture.rangeHeaders() == ["bytes=2097152-3145727"])
    }
}
