import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct VideoConcurrencyTests {
    @Test func overlappingStreamsFetchEachChunkOnce() async throws {
        // Given a gated origin and a video of 16 chunks whose info is known, read by streams reading 8 chunks
        // ahead (so each stream below asks for its range in one window)
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 16 * chunk, chunkSize: chunk, readAhead: 8 * chunk)
        defer { fixture.tearDown() }
        _ = try await fixture.video.contentInfo(for: fixture.url)
        fixture.origin.resetLog()
        fixture.origin.setBehavior(fixture.path, .init(gated: true))

        // When stream A (chunks 1-8) is waiting at the gate and stream B (chunks 5-12) starts
        let first = Task {
            try await fixture.collect(fixture.video.stream(for: fixture.url, range: chunk..<(9 * chunk)))
        }
        try await fixture.origin.waitForInFlight(path: fixture.path, count: 1)
        let second = Task {
            try await fixture.collect(fixture.video.stream(for: fixture.url, range: (5 * chunk)..<(13 * chunk)))
        }
        try await fixture.origin.waitForInFlight(path: fixture.path, count: 2)
        fixture.origin.release(fixture.path)
        let (dataA, dataB) = (try await first.value, try await second.value)

        // Then both get the right bytes, and B asked only for the chunks A was not fetching
        #expect(dataA == fixture.bytes(chunk..<(9 * chunk)))
        #expect(dataB == fixture.bytes((5 * chunk)..<(13 * chunk)))
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: 2)
        let requests = fixture.origin.requests(for: fixture.path)
        #expect(requests.compactMap { $0.headers["range"] } == ["bytes=65536-589823", "bytes=589824-851967"])
        #expect(requests.map(\.bodyBytesSent).reduce(0, +) == 12 * chunk)
        #expect(fixture.video.statistics.rangeRequests == 3)
        #expect(fixture.video.statistics.fetchesJoined == 1)
    }

    @Test func concurrentFirstReadsShareOneProbe() async throws {
        // Given a video nobody has read and a gated origin
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 2 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        fixture.origin.setBehavior(fixture.path, .init(gated: true))

        // When two readers ask for the info at once
        let first = Task { try await fixture.video.contentInfo(for: fixture.url) }
        try await fixture.origin.waitForInFlight(path: fixture.path, count: 1)
        let second = Task { try await fixture.video.contentInfo(for: fixture.url) }
        try await waitUntil("the second ask to join") { fixture.video.statistics.fetchesJoined == 1 }
        fixture.origin.setBehavior(fixture.path, .normal)

        // Then both get the same info from one request
        #expect(try await first.value == second.value)
        #expect(fixture.origin.requestCount(for: fixture.path) == 1)
    }

    @Test func cancellingAStreamStopsItsFetch() async throws {
        // Given an origin whose body stalls after a chunk and a half (it never completes, so the test
        // does not race the transfer), and a video whose info is known, read by streams reading 7 chunks
        // ahead (so the stream below asks for its whole run at once)
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 8 * chunk, chunkSize: chunk, readAhead: 7 * chunk)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(stallAfterBodyBytes: chunk + chunk / 2))

        // When a stream of the missing chunks starts and its consumer is cancelled mid-body
        let consumer = Task {
            try await fixture.collect(fixture.video.stream(for: fixture.url, range: chunk..<(8 * chunk)))
        }
        try await fixture.origin.waitForInFlight(path: fixture.path, count: 1)
        consumer.cancel()

        // Then the origin sees the client close, the stream ends, and of the run only chunk 1, complete
        // before the stall, is cached
        try await fixture.origin.waitUntilClientClosed(path: fixture.path)
        _ = await consumer.result
        await fixture.video.waitForPendingStores()
        #expect(try await fixture.storedChunk(1) == fixture.bytes(chunk..<(2 * chunk)))
        for index in 2..<8 { #expect(try await fixture.storedChunk(index) == nil) }
        #expect(fixture.video.statistics.chunksStored == 2)
    }

    @Test func aReaderLeavingDoesNotCancelASharedFetch() async throws {
        // Given two readers waiting on the same gated run
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(gated: true))
        let leaving = Task { try await fixture.video.data(for: fixture.url, range: chunk..<(4 * chunk)) }
        try await fixture.origin.waitForInFlight(path: fixture.path, count: 1)
        let staying = Task { try await fixture.video.data(for: fixture.url, range: (2 * chunk)..<(3 * chunk)) }
        try await waitUntil("the second reader to join") { fixture.video.statistics.fetchesJoined == 1 }

        // When one is cancelled and the gate opens
        leaving.cancel()
        _ = await leaving.result
        fixture.origin.setBehavior(fixture.path, .normal)

        // Then the other still gets its bytes from the one request
        #expect(try await staying.value == fixture.bytes((2 * chunk)..<(3 * chunk)))
        #expect(fixture.origin.requestCount(for: fixture.path) == 2)
    }
}
