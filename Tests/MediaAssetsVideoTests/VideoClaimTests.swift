import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsVideo

/// Holds everyone who arrives until `count` have, then lets them all on; later arrivals pass at once.
private actor Meeting {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(of count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        guard arrived < count else {
            for waiter in waiting { waiter.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

@Suite struct VideoClaimTests {
    @Test func readersClaimingOneChunkTogetherShareOneFetch() async throws {
        // Given a video whose info is known, a gated origin, and readers that meet just before they claim
        // the chunks they miss (as two threads preempted there would)
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(gated: true))
        fixture.origin.resetLog()
        let meeting = Meeting(of: 2)
        fixture.video.beforeClaimingChunks.withLock { $0 = { await meeting.arrive() } }

        // When two streams of chunk 1 start at once, and both have claimed it (joined or fetched)
        let readers = (0..<2).map { _ in
            Task { try await fixture.collect(fixture.video.stream(for: fixture.url, range: chunk..<(2 * chunk))) }
        }
        try await waitUntil("both readers to claim chunk 1") {
            fixture.video.statistics.fetchesJoined + fixture.origin.requestCount(for: fixture.path) == 2
        }
        fixture.origin.setBehavior(fixture.path, .normal)

        // Then both get the chunk from one request, the second reader having joined the first one's fetch
        for reader in readers { #expect(try await reader.value == fixture.bytes(chunk..<(2 * chunk))) }
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: 1)
        #expect(fixture.rangeHeaders() == ["bytes=65536-131071"])
        #expect(fixture.video.statistics.fetchesJoined == 1)
    }
}
