import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct VideoValidationTests {
    @Test func aReplacedResourceIsDetectedAndItsOldChunksDropped() async throws {
        // Given a video with chunk 0 cached, then replaced at the origin by one of another length
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        let oldInfo = try await fixture.video.contentInfo(for: fixture.url)
        let replacement = testBytes(count: 5 * chunk + 3, seed: 99)
        fixture.origin.replace(fixture.path, data: replacement)

        // When a range needing a fetch is read
        let data = try await fixture.video.data(for: fixture.url, range: 0..<(4 * chunk))

        // Then the If-Range fetch got the new content, which is what is served and cached now
        #expect(data == replacement[0..<(4 * chunk)])
        let requests = fixture.origin.requests(for: fixture.path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-range"] == oldInfo.etag)
        #expect(requests.last?.status == 200)
        let info = try await fixture.video.contentInfo(for: fixture.url)
        #expect(info.length == replacement.count)
        #expect(info.etag == fixture.origin.etag(for: fixture.path))
        #expect(try await fixture.storedChunk(0) == replacement[0..<chunk])
        #expect(try await fixture.storedChunk(5) == replacement[(5 * chunk)...])
        #expect(fixture.video.statistics.invalidations == 1)
    }

    @Test func aReplacedResourceOfTheSameLengthIsDetectedByETag() async throws {
        // Given a video fully cached, then replaced by different bytes of the same length
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 3 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        _ = try await fixture.video.data(for: fixture.url, range: 0..<chunk)
        let replacement = testBytes(count: 3 * chunk, seed: 5)
        fixture.origin.replace(fixture.path, data: replacement)

        // When a missing chunk is read
        let data = try await fixture.video.data(for: fixture.url, range: (2 * chunk)..<(3 * chunk))

        // Then the new bytes are served and the old chunk 0 is gone in favour of the new one
        #expect(data == replacement[(2 * chunk)...])
        #expect(try await fixture.storedChunk(0) == replacement[0..<chunk])
        #expect(fixture.video.statistics.invalidations == 1)
    }

    @Test func aStreamThatAlreadyYieldedOldBytesFailsWhenTheResourceChanges() async throws {
        // Given a video in windows of 4 chunks with its first window cached, then replaced at the origin
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 8 * chunk, chunkSize: chunk, windowSize: 4 * chunk)
        defer { fixture.tearDown() }
        _ = try await fixture.video.data(for: fixture.url, range: 0..<(4 * chunk))
        let replacement = testBytes(count: 8 * chunk, seed: 8)
        fixture.origin.replace(fixture.path, data: replacement)

        // When the whole video is streamed (the first window goes out before the change is seen)
        var yielded = 0
        let error = await #expect(throws: VideoError.self) {
            for try await piece in fixture.video.stream(for: fixture.url, range: 0..<(8 * chunk)) {
                yielded += piece.count
            }
        }

        // Then the stream fails rather than mixing contents, and a new read gets the new bytes
        #expect(error == .resourceChanged(url: fixture.url))
        #expect(yielded == 4 * chunk)
        #expect(try await fixture.video.data(for: fixture.url, range: 0..<(8 * chunk)) == replacement)
        #expect(fixture.video.statistics.invalidations == 1)
    }

    @Test func anOriginIgnoringRangeStillServesAndCaches() async throws {
        // Given an origin that answers every GET with the whole body
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 3 * chunk + 10, chunkSize: chunk)
        defer { fixture.tearDown() }
        fixture.origin.setBehavior(fixture.path, .init(ignoreRange: true))

        // When a range is read, then another
        let first = try await fixture.video.data(for: fixture.url, range: (chunk + 5)..<(2 * chunk + 9))
        let second = try await fixture.video.data(for: fixture.url, range: (3 * chunk)..<(3 * chunk + 10))

        // Then both are right, every chunk was cached from the one full body, and nothing changed
        #expect(first == fixture.bytes((chunk + 5)..<(2 * chunk + 9)))
        #expect(second == fixture.bytes((3 * chunk)..<(3 * chunk + 10)))
        #expect(fixture.origin.requestCount(for: fixture.path) == 1)
        for index in 0..<4 {
            let expected = fixture.bytes((index * chunk)..<min((index + 1) * chunk, 3 * chunk + 10))
            #expect(try await fixture.storedChunk(index) == expected)
        }
        #expect(fixture.video.statistics.chunksStored == 4)
        #expect(fixture.video.statistics.invalidations == 0)
    }

    @Test func anOriginThatStartsIgnoringRangeIsNotMistakenForAChange() async throws {
        // Given a video whose info and chunk 0 are cached, and an origin that now ignores Range
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(ignoreRange: true))

        // When a missing chunk is read
        let data = try await fixture.video.data(for: fixture.url, range: (2 * chunk)..<(3 * chunk))

        // Then the 200 (same ETag) is cut into chunks: all cached, no invalidation
        #expect(data == fixture.bytes((2 * chunk)..<(3 * chunk)))
        #expect(fixture.video.statistics.invalidations == 0)
        #expect(fixture.video.statistics.chunksStored == 4)
        #expect(try await fixture.storedChunk(3) == fixture.bytes((3 * chunk)..<(4 * chunk)))
    }

    @Test func aBodyCutShortThrowsAndKeepsOnlyTheChunksThatCompleted() async throws {
        // Given a video whose info is known, and an origin that closes mid-body
        let chunk = 64 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        try await fixture.cacheInfo(thenServeWith: .init(closeAfterBodyBytes: chunk + 100))

        // When chunks 1-3 are read
        let error = await #expect(throws: AssetsError.self) {
            try await fixture.video.data(for: fixture.url, range: chunk..<(4 * chunk))
        }

        // Then the error is the manager's, as from every util, naming the URL; of the run only chunk 1,
        // complete before the cut, was cached (chunks are stored as each completes)
        #expect(error?.description.contains(fixture.url.absoluteString) == true)
        await fixture.video.waitForPendingStores()
        #expect(try await fixture.storedChunk(1) == fixture.bytes(chunk..<(2 * chunk)))
        for index in 2..<4 { #expect(try await fixture.storedChunk(index) == nil) }
        #expect(fixture.video.statistics.chunksStored == 2)
    }

    @Test(arguments: [FaultyRangeLoader.Fault.shiftedContentRange, .otherTotal, .shortBody])
    func aResponseNotMatchingTheRequestThrowsAndCachesNothing(fault: FaultyRangeLoader.Fault) async throws {
        // Given a loader whose answers to ranges past byte 0 do not fit the request
        let chunk = 64 << 10
        let directory = try TemporaryDirectory("VideoTests")
        defer { directory.remove() }
        let source = testBytes(count: 4 * chunk, seed: 3)
        let loader = FaultyRangeLoader(data: source, fault: fault)
        let manager = try AssetsManager.forTesting(directory: directory, loader: loader)
        let video = VideoUtil(manager: manager, configuration: .init(chunkSize: chunk))
        let url = try #require(URL(string: "https://example.com/clip.mp4"))

        // When chunk 2 is read
        let error = await #expect(throws: VideoError.self) {
            try await video.data(for: url, range: (2 * chunk)..<(3 * chunk))
        }

        // Then the error says what did not fit, and nothing of the answer was cached
        let expected = (2 * chunk)..<(3 * chunk)
        switch fault {
        case .shiftedContentRange:
            #expect(error == .contentRangeMismatch(url: url, expected: expected, actual: "bytes 131073-196608/262144"))
        case .otherTotal:
            #expect(error == .lengthChanged(url: url, expected: 4 * chunk, actual: 4 * chunk + 1))
        case .shortBody:
            #expect(error == .shortBody(url: url, expected: expected, receivedBytes: chunk / 2))
        }
        let key = manager.cacheKey(for: AssetRequest(url: url))
        // Chunks are stored in the background; the read threw before chunk 0's store had to end.
        await video.waitForPendingStores()
        #expect(try await manager.cachedEntry(forKey: key.chunk(2), storageType: .disk) == nil)
        let chunkZero = try await manager.cachedEntry(forKey: key.chunk(0), storageType: .disk)?.data
        if fault == .otherTotal {
            // A length that changes under the same validators drops the resource altogether.
            #expect(chunkZero == nil)
            #expect(video.statistics.invalidations == 1)
        } else {
            #expect(chunkZero == source[0..<chunk])
        }
    }
}
