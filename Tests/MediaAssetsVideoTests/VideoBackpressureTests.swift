import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct VideoBackpressureTests {
    @Test func aSlowConsumerHoldsAtMostTwoWindows() async throws {
        // Given a 1 MiB video in 16 KiB chunks read in windows of 64 KiB (16 windows)
        let chunk = 16 << 10
        let window = 4 * chunk
        let size = 64 * chunk
        let fixture = try VideoFixture(size: size, chunkSize: chunk, windowSize: window)
        defer { fixture.tearDown() }
        let windowRequests = 1 + size / window  // the probe, then one request per window

        // When a consumer takes one piece, then lets the producer run until it parks, piece by piece
        var received = Data()
        for try await piece in fixture.video.stream(for: fixture.url, range: 0..<size) {
            received.append(piece)
            try await waitUntil("the producer to park or finish") {
                fixture.video.parkedStreamProducers == 1
                    || fixture.origin.requestCount(for: fixture.path) == windowRequests
            }
            #expect(fixture.video.statistics.streamBufferPeak <= 2 * window)
        }

        // Then every byte arrived in order, and the buffer never held more than two windows
        #expect(received == fixture.source)
        let peak = fixture.video.statistics.streamBufferPeak
        #expect(peak > window && peak <= 2 * window)
        #expect(fixture.origin.requestCount(for: fixture.path) == windowRequests)
    }

    @Test func aStreamFetchesNothingUntilIterated() async throws {
        // Given a stream that was made but never iterated
        let chunk = 16 << 10
        let fixture = try VideoFixture(size: 8 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        let stream = fixture.video.stream(for: fixture.url, range: 0..<(8 * chunk))

        // When it is iterated for its first piece only
        #expect(fixture.origin.requestCount(for: fixture.path) == 0)
        var iterator = stream.makeAsyncIterator()
        let first = try await iterator.next()

        // Then the origin saw requests only once iteration began
        #expect(first == fixture.bytes(0..<chunk))
        #expect(fixture.origin.requestCount(for: fixture.path) >= 1)
    }
}
