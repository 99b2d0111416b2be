import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct VideoBackpressureTests {
    @Test func aSlowConsumerHoldsAtMostTheReadAhead() async throws {
        // Given a 1 MiB video in 16 KiB chunks streamed with a read-ahead of 32 KiB (32 windows)
        let chunk = 16 << 10
        let readAhead = 2 * chunk
        let size = 64 * chunk
        let fixture = try VideoFixture(size: size, chunkSize: chunk, readAhead: readAhead)
        defer { fixture.tearDown() }
        let windowRequests = 1 + size / readAhead  // the probe, then one request per read-ahead

        // When a consumer takes one piece, then lets the producer run until it parks, piece by piece
        var received = Data()
        for try await piece in fixture.video.stream(for: fixture.url, range: 0..<size) {
            received.append(piece)
            try await waitUntil("the producer to park or finish") {
                fixture.video.parkedStreamProducers == 1
                    || fixture.origin.requestCount(for: fixture.path) == windowRequests
            }
            #expect(fixture.video.statistics.streamBufferPeak <= readAhead)
        }

        // Then every byte arrived in order, and the buffer never held more than the read-ahead
        #expect(received == fixture.source)
        let peak = fixture.video.statistics.streamBufferPeak
        #expect(peak > 0 && peak <= readAhead)
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
