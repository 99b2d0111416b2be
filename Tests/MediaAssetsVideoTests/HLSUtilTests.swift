import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite struct HLSUtilTests {
    @Test func concurrentReadersOfASegmentMakeOneRequest() async throws {
        // Given a generated stream whose first segment is held at the origin's gate
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let stream = environment.origin.registerHLSStream(at: "/live", segments: 4)
        let hls = HLSUtil(manager: environment.manager)
        let playlistURL = environment.origin.url(for: stream.variantPaths[0])
        let media = try await hls.mediaPlaylist(for: AssetRequest(url: playlistURL))
        let segmentPath = "/live/v0/seg0.ts"
        environment.origin.setBehavior(segmentPath, .init(gated: true))

        // When eight readers ask for it at once and the gate opens
        let readers = (0..<8).map { _ in Task { try await hls.data(for: HLSResource(media.segments[0])) } }
        try await environment.origin.waitForInFlight(path: segmentPath, count: 1)
        try await waitUntil("seven readers to join") { hls.statistics.fetchesJoined == 7 }
        environment.origin.setBehavior(segmentPath, .normal)
        environment.origin.release(segmentPath)
        let results = try await readers.asyncMap { try await $0.value }

        // Then all got the bytes of one request, and the next read is a cache hit
        #expect(Set(results).count == 1 && results[0].count == 4_096)
        #expect(environment.origin.requestCount(for: segmentPath) == 1)
        _ = try await hls.data(for: HLSResource(media.segments[0]))
        #expect(environment.origin.requestCount(for: segmentPath) == 1)
    }

    @Test func segmentsAreKeyedThroughTheKeyFactory() async throws {
        // Given a manager whose keys drop the "token" query item
        let environment = try OriginEnvironment(keyFactory: .removingQueryItems(["token"]))
        defer { environment.tearDown() }
        environment.origin.registerHLSStream(at: "/s", segments: 1)
        let hls = HLSUtil(manager: environment.manager)
        let first = environment.origin.url(for: "/s/v0/seg0.ts?token=a")
        let second = environment.origin.url(for: "/s/v0/seg0.ts?token=b")

        // When the same segment is read with two tokens
        let a = try await hls.data(for: HLSResource(uri: first))
        let b = try await hls.data(for: HLSResource(uri: second))

        // Then the second read is served from the first one's entry
        #expect(a == b)
        #expect(environment.origin.requestCount(for: "/s/v0/seg0.ts") == 1)
    }

    @Test func prefetchCachesTheFirstSecondsOnly() async throws {
        // Given a stream of 2-second segments
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let stream = environment.origin.registerHLSStream(at: "/p", segments: 6)
        let hls = HLSUtil(manager: environment.manager)

        // When the first 5 seconds of the master are prefetched
        try await hls.prefetch(AssetRequest(url: environment.origin.url(for: stream.masterPath)), seconds: 5)

        // Then the top variant and the audio have key, init and 3 segments cached, and no more
        for prefix in ["/p/v1", "/p/audio"] {
            let ext = prefix == "/p/audio" ? "aac" : "ts"
            for path in ["key.bin", "init.mp4", "seg0.\(ext)", "seg1.\(ext)", "seg2.\(ext)"] {
                #expect(environment.origin.requestCount(for: "\(prefix)/\(path)") == 1, "\(prefix)/\(path)")
            }
            #expect(environment.origin.requestCount(for: "\(prefix)/seg3.\(ext)") == 0)
        }
        #expect(environment.origin.requestCount(for: "/p/v0/seg0.ts") == 0)
    }

    @Test func aByteRangeSegmentIsFetchedAndKeyedByItsRange() async throws {
        // Given a playlist whose two segments are byte ranges of one file
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let file = testBytes(count: 3_000, seed: 3)
        environment.serve("/br/all.ts", file)
        let playlist =
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-BYTERANGE:1000@0\nall.ts\n"
            + "#EXTINF:2,\n#EXT-X-BYTERANGE:2000\nall.ts\n#EXT-X-ENDLIST\n"
        environment.serve("/br/index.m3u8", Data(playlist.utf8))
        let hls = HLSUtil(manager: environment.manager)

        // When both segments are read, twice
        let playlistURL = environment.origin.url(for: "/br/index.m3u8")
        let media = try await hls.mediaPlaylist(for: AssetRequest(url: playlistURL))
        var parts: [Data] = []
        for _ in 0..<2 {
            for segment in media.segments { parts.append(try await hls.data(for: HLSResource(segment))) }
        }

        // Then each is its exact range, fetched once with a Range header
        #expect(parts[0] == file[0..<1000] && parts[1] == file[1000..<3000])
        #expect(parts[2] == parts[0] && parts[3] == parts[1])
        #expect(
            environment.origin.requests(for: "/br/all.ts").compactMap { $0.headers["range"] }
                == ["bytes=0-999", "bytes=1000-2999"])
    }

    @Test func aLivePlaylistIsReloadedPerTargetDurationUntilItEnds() async throws {
        // Given a live playlist that the injected clock turns into a finished one at its first wait
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let path = "/live/index.m3u8"
        environment.serve(path, Data(SampleOrigin.hlsMediaPlaylist(segments: 2, endList: false).utf8))
        let waits = Mutex<[Duration]>([])
        let origin = environment.origin
        let hls = HLSUtil(manager: environment.manager) { duration in
            waits.withLock { $0.append(duration) }
            origin.replace(path, data: Data(SampleOrigin.hlsMediaPlaylist(segments: 3, endList: true).utf8))
        }

        // When its updates are followed
        var counts: [Int] = []
        for try await media in hls.playlistUpdates(for: AssetRequest(url: origin.url(for: path))) {
            counts.append(media.segments.count)
        }

        // Then it was loaded, waited one target duration, reloaded, and ended at EXT-X-ENDLIST
        #expect(counts == [2, 3])
        #expect(waits.withLock { $0 } == [.seconds(2)])
        #expect(origin.requestCount(for: path) == 2)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
