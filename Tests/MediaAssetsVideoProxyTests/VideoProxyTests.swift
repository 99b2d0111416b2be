import Foundation
import MediaAssets
import MediaAssetsVideo
@_spi(Fuzzing) import MediaAssetsVideoProxy
import SampleOrigin
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An origin, a manager over a temporary disk cache, and a started proxy over both utils.
struct ProxyFixture {
    let environment: OriginEnvironment
    let proxy: VideoProxy

    /// A proxy over 64 KiB chunks, streams reading `readAhead` ahead (one chunk unless given).
    init(readAhead: Int? = nil) throws {
        environment = try OriginEnvironment()
        let manager = environment.manager
        proxy = VideoProxy(
            video: VideoUtil(manager: manager, configuration: .init(chunkSize: 64 << 10, readAhead: readAhead)),
            hls: HLSUtil(manager: manager)
        )
        try proxy.start()
    }

    var origin: SampleOrigin { environment.origin }

    /// GETs `url` with an optional `Range`, returning status, body and headers.
    func get(_ url: URL, range: String? = nil) async throws -> (status: Int, body: Data, response: HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = 600  // a request the origin holds at a gate receives nothing for a while
        if let range { request.setValue(range, forHTTPHeaderField: "Range") }
        let (body, response) = try await URLSession.forTesting.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, body, http)
    }

    func tearDown() {
        proxy.stop()
        environment.tearDown()
    }
}

@Suite struct VideoProxyTests {
    @Test func startingARunningProxyIsAVideoErrorNamingItsPort() throws {
        // Given a started proxy
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }

        // When it is started again, then the error is the video module's own, naming the port it serves on
        #expect {
            try fixture.proxy.start()
        } throws: { error in
            guard case .proxyUnavailable(let reason)? = error as? VideoError else { return false }
            return reason.contains("\(fixture.proxy.port)")
        }
    }

    @Test func rangeRequestsAreAnsweredByteExactlyAndTheSecondPlayStaysLocal() async throws {
        // Given a 300 KiB progressive file on the origin
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 300 << 10, seed: 21)
        let url = fixture.environment.serve("/movie.mp4", source, contentType: "video/mp4")
        let proxied = fixture.proxy.proxyURL(for: url)
        #expect(proxied.host == "127.0.0.1" && proxied.lastPathComponent == "movie.mp4")

        // When a player reads it by ranges through the proxy, twice, beside direct reads
        let ranges = ["bytes=0-99", "bytes=70000-200000", "bytes=300000-", "bytes=-1000", "bytes=0-"]
        for _ in 0..<2 {
            for range in ranges {
                let viaProxy = try await fixture.get(proxied, range: range)
                let direct = try await fixture.get(url, range: range)

                // Then status, Content-Range and bytes match the origin's exactly
                #expect(viaProxy.status == direct.status, "\(range)")
                #expect(viaProxy.body == direct.body, "\(range)")
                #expect(
                    viaProxy.response.value(forHTTPHeaderField: "Content-Range")
                        == direct.response.value(forHTTPHeaderField: "Content-Range"))
            }
        }
        let unsatisfiable = try await fixture.get(proxied, range: "bytes=400000-")
        #expect(unsatisfiable.status == 416)

        // And a third play through the proxy makes no origin request
        fixture.origin.resetLog()
        for range in ranges { _ = try await fixture.get(proxied, range: range) }
        #expect(fixture.origin.requestCount(for: "/movie.mp4") == 0)
    }

    @Test func playlistsAreRewrittenAndSegmentsServedFromTheCache() async throws {
        // Given a generated HLS stream
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let stream = fixture.origin.registerHLSStream(at: "/hls", segments: 3)
        let master = fixture.proxy.proxyURL(for: fixture.origin.url(for: stream.masterPath))

        // When a player walks master → variant → every resource through the proxy, twice
        var firstPass: [Data] = []
        var served: [Data] = []
        for pass in 0..<2 {
            if pass == 1 { fixture.origin.resetLog() }
            let masterText = try await fixture.get(master).body
            guard case .master(let parsed) = try HLSPlaylist.parse(masterText, url: master) else {
                Issue.record("not a master playlist")
                return
            }
            // Then every URI in the playlists points at the proxy
            #expect(parsed.variants.allSatisfy { $0.uri.port == fixture.proxy.port })
            #expect(parsed.renditions.allSatisfy { $0.uri?.port == fixture.proxy.port })
            let variantURL = parsed.variants[0].uri
            let variantText = try await fixture.get(variantURL).body
            guard case .media(let media) = try HLSPlaylist.parse(variantText, url: variantURL) else {
                Issue.record("not a media playlist")
                return
            }
            #expect(media.segments.count == 3 && media.isEndList)
            for segment in media.segments {
                #expect(segment.uri.port == fixture.proxy.port && segment.uri.pathExtension == "ts")
                #expect(segment.key?.uri?.port == fixture.proxy.port)
                #expect(segment.map?.uri.pathExtension == "mp4")
                let body = try await fixture.get(segment.uri).body
                if pass == 0 { firstPass.append(body) } else { served.append(body) }
            }
        }

        // And the second play made no origin request and got the origin's bytes
        #expect(fixture.origin.totalRequestCount == 0)
        #expect(served == firstPass)
        for index in 0..<3 {
            let direct = try await fixture.get(fixture.origin.url(for: "/hls/v0/seg\(index).ts")).body
            #expect(firstPass[index] == direct)
        }
    }

    @Test func stopCancelsTheAnswersWaitingOnTheOriginInsteadOfWaitingForThem() async throws {
        // Given a player's request that the proxy answers from an origin holding it at a gate
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let url = fixture.environment.serve("/held.mp4", Data(count: 200_000), behavior: .init(gated: true))
        let proxied = fixture.proxy.proxyURL(for: url)
        let player = Task { try? await fixture.get(proxied, range: "bytes=0-99") }
        try await fixture.origin.waitForInFlight(path: "/held.mp4", count: 1)

        // When the proxy stops (on a thread of its own: stop() blocks until its connections end)
        let proxy = fixture.proxy
        let stopped = SharedCount()
        Thread.detachNewThread {
            proxy.stop()
            stopped.add()
        }

        // Then it returns while the origin's gate is still closed (its request never answered: the proxy's
        // cancelled fetch hangs up on it rather than waiting), and the player is answered
        try await waitUntil("stop() to return with the origin's gate still closed") { stopped.value == 1 }
        #expect(fixture.origin.requests(for: "/held.mp4").allSatisfy { $0.status == nil })
        _ = await player.value
    }

    @Test(arguments: ["/nothing", "/p/%%%/x.mp4", "/p/bm90IGEgdXJs/x.mp4", "/s/aHR0cDovLw/x.ts", "/x/aGVsbG8/y"])
    func malformedProxyPathsAre400(path: String) async throws {
        // Given a running proxy
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }

        // When a path that is not a proxy URL is asked for
        let url = try #require(URL(string: fixture.proxy.baseURL.absoluteString + path))
        let response = try await fixture.get(url)

        // Then it is answered 400 and the proxy keeps serving
        #expect(response.status == 400)
        #expect(fixture.origin.totalRequestCount == 0)
    }
}

@Suite struct ProxyPathFuzzTests {
    @Test func seededMutationsOfProxyPathsNeverCrashTheParser() throws {
        // Given the path of a real proxy URL (with a byte range in its token)
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let proxied = fixture.proxy.proxyURL(for: URL(string: "http://127.0.0.1:9/a/b.mp4?token=x")!)
        let seed = Array(proxied.path.utf8) + Array("/p/MTAtMjB8aHR0cDovLzEyNy4wLjAuMS9hLnRz/a.ts".utf8)
        var generator = SeededGenerator(seed: 0x5052_5859)

        // When 2,000 mutations of it are parsed
        for _ in 0..<2_000 {
            fuzzVideoProxyPath(Data(generator.mutation(of: seed, inserting: "/|-=%_")))
        }

        // Then nothing crashed, and an unmutated path still parses to a working URL
        #expect(proxied.lastPathComponent == "b.mp4")
    }
}
