import Foundation
import MediaAssets
import MediaAssetsVideo
import TestSupport
import Testing

@Suite struct VideoReadingTests {
    @Test func thousandRandomRangesMatchTheSource() async throws {
        // Given a 32 MiB video in 1 MiB chunks, stored on disk behind the video memory partition (so that
        // 1,000 reads do not verify 1 MiB disk checksums in a debug build)
        let fixture = try VideoFixture(
            size: 32 << 20, chunkSize: 1 << 20, seed: 7, diskSizeLimit: 128 << 20, storageType: .hybrid(.video)
        )
        defer { fixture.tearDown() }
        var generator = SeededGenerator(seed: 42)
        let length = fixture.source.count

        // When 1,000 random ranges are read, most small, a few up to 4 MiB
        for round in 0..<1_000 {
            let maximum = round % 50 == 0 ? 4 << 20 : 256 << 10
            let count = Int.random(in: 1...maximum, using: &generator)
            let start = Int.random(in: 0...(length - count), using: &generator)
            let data = try await fixture.video.data(for: fixture.url, range: start..<(start + count))

            // Then every byte equals the source
            #expect(data == fixture.source[start..<(start + count)], "range \(start)..<\(start + count)")
            #expect(data.startIndex == 0)
        }
        #expect(fixture.video.statistics.invalidations == 0)
    }

    @Test func partialHitFetchesExactlyTheMissingRuns() async throws {
        // Given chunks 0-1 and 4 of a 7-chunk video cached
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 6 * chunk + 1_000, chunkSize: chunk)
        defer { fixture.tearDown() }
        _ = try await fixture.video.data(for: fixture.url, range: 0..<(2 * chunk))
        _ = try await fixture.video.data(for: fixture.url, range: (4 * chunk)..<(5 * chunk))
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: 3)
        fixture.origin.resetLog()
        let before = fixture.video.statistics

        // When chunks 0..<6 are read
        let data = try await fixture.video.data(for: fixture.url, range: 0..<(6 * chunk))

        // Then one request per missing run (2-3 and 5), for exactly the missing bytes, with If-Range
        #expect(data == fixture.bytes(0..<(6 * chunk)))
        try await fixture.origin.waitForFinishedRequests(path: fixture.path, count: 2)
        let requests = fixture.origin.requests(for: fixture.path)
        #expect(Set(requests.compactMap { $0.headers["range"] }) == ["bytes=131072-262143", "bytes=327680-393215"])
        #expect(requests.map(\.bodyBytesSent).reduce(0, +) == 3 * chunk)
        #expect(requests.allSatisfy { $0.headers["if-range"] == fixture.origin.etag(for: fixture.path) })
        #expect(requests.allSatisfy { $0.status == 206 })
        let after = fixture.video.statistics
        #expect(after.rangeRequests - before.rangeRequests == 2)
        #expect(after.bytesFetched - before.bytesFetched == 3 * chunk)
        #expect(after.bytesServedFromCache - before.bytesServedFromCache == 3 * chunk)
        #expect(after.chunksStored - before.chunksStored == 3)
        #expect(after.chunksEvicted == 0)
    }

    @Test func contentInfoComesFromTheFirstResponseThenFromTheRecord() async throws {
        // Given a video of 3 chunks and a bit
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 3 * chunk + 5, chunkSize: chunk)
        defer { fixture.tearDown() }

        // When its info is asked by one util, then by a second util over the same manager
        let info = try await fixture.video.contentInfo(for: fixture.url)
        let second = VideoUtil(manager: fixture.manager, configuration: .init(chunkSize: chunk))
        let again = try await second.contentInfo(for: fixture.url)

        // Then one request for chunk 0 told the length (its body stored as chunk 0 behind the answer), and
        // the meta record answered the second
        await fixture.video.waitForPendingStores()
        #expect(info.length == 3 * chunk + 5)
        #expect(info.contentType == "video/mp4")
        #expect(info.etag == fixture.origin.etag(for: fixture.path))
        #expect(info.lastModified != nil)
        #expect(again == info)
        #expect(fixture.rangeHeaders() == ["bytes=0-65535"])
        #expect(try await fixture.storedChunk(0) == fixture.bytes(0..<chunk))
        #expect(second.statistics.rangeRequests == 0)
        #expect(fixture.video.statistics.chunksStored == 1)
    }

    @Test func badRangesThrowTypedErrorsAndLongOnesAreClamped() async throws {
        // Given a video of 1,000 bytes
        let fixture = try VideoFixture(size: 1_000, chunkSize: 256)
        defer { fixture.tearDown() }

        // When empty ranges or ranges starting outside it are read, Then each throws invalidRange
        for range in [10..<10, -1..<5, 1_000..<1_001, 5_000..<6_000] {
            await #expect(throws: VideoError.invalidRange(url: fixture.url, requested: range, length: 1_000)) {
                try await fixture.video.data(for: fixture.url, range: range)
            }
        }
        // And a range running past the end is clamped to it, as HTTP reads it (the DocC sample's first MiB)
        #expect(try await fixture.video.data(for: fixture.url, range: 990..<1_001) == fixture.bytes(990..<1_000))
        #expect(try await fixture.video.data(for: fixture.url, range: 0..<1_048_576) == fixture.source)
        let streamed = try await fixture.collect(fixture.video.stream(for: fixture.url, range: 999..<2_000))
        #expect(streamed == fixture.bytes(999..<1_000))
    }

    @Test func streamYieldsTheRangeInOrder() async throws {
        // Given a video with its middle chunk cached
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 5 * chunk + 17, chunkSize: chunk)
        defer { fixture.tearDown() }
        _ = try await fixture.video.data(for: fixture.url, range: (2 * chunk)..<(3 * chunk))

        // When a range across cached and missing chunks is streamed
        var pieces: [Data] = []
        for try await piece in fixture.video.stream(for: fixture.url, range: 100..<(5 * chunk + 17)) {
            pieces.append(piece)
        }

        // Then the pieces, in order, are exactly the source bytes
        #expect(pieces.reduce(into: Data()) { $0.append($1) } == fixture.bytes(100..<(5 * chunk + 17)))
        #expect(pieces.count == 6)
        #expect(pieces.allSatisfy { $0.startIndex == 0 })
    }

    @Test func prefetchWarmsTheHeadAndRemoveDropsEverything() async throws {
        // Given a video of 4 chunks
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }

        // When its head is prefetched
        try await fixture.video.prefetch(for: fixture.url, byteCount: 2 * chunk + 1)

        // Then chunks 0-2 are cached, 3 is not, and reading the head needs no request
        for index in 0..<3 {
            #expect(try await fixture.storedChunk(index) == fixture.bytes((index * chunk)..<((index + 1) * chunk)))
        }
        #expect(try await fixture.storedChunk(3) == nil)
        let requests = fixture.origin.requestCount(for: fixture.path)
        _ = try await fixture.video.data(for: fixture.url, range: 0..<(3 * chunk))
        #expect(fixture.origin.requestCount(for: fixture.path) == requests)

        // When it is removed
        try await fixture.video.remove(for: fixture.url)

        // Then no chunk and no record remain
        for index in 0..<4 { #expect(try await fixture.storedChunk(index) == nil) }
        #expect(try await fixture.manager.cachedEntry(forKey: fixture.key.chunkRecord, storageType: .disk) == nil)
    }
}
