import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ProxyStreamingTests {
    @Test func aClientHangingUpMidBodyCancelsTheOriginFetch() async throws {
        // Given a 1 MiB file whose answers stall after 100 KB (the probe's 64 KiB chunk completes), read
        // through a proxy whose streams read up to 1 MiB ahead (so the fetch of the rest is one request,
        // which stalls mid-body)
        let fixture = try ProxyFixture(readAhead: 1 << 20)
        defer { fixture.tearDown() }
        let url = fixture.environment.serve(
            "/stall.mp4", testBytes(count: 1 << 20, seed: 71), behavior: .init(stallAfterBodyBytes: 100_000))
        let client = try RawStreamingClient(port: fixture.proxy.port)
        let path = fixture.proxy.proxyURL(for: url).path

        // When a player asks for all of it, takes the head and some bytes, and hangs up
        client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-\r\n\r\n")
        let head = try await offPool { try client.readHead() }
        #expect(head.status == 206 && head.headers["content-length"] == "\(1 << 20)")
        try await fixture.origin.waitForRequests(path: "/stall.mp4", count: 2)
        _ = consume client

        // Then the proxy's fetch of the rest is cancelled: the origin sees its client go
        try await fixture.origin.waitUntilClientClosed(path: "/stall.mp4")
    }

    @Test func manyPlayersReadRangesAtOnceOverKeepAliveConnections() async throws {
        // Given a 2 MiB file
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 2 << 20, seed: 72)
        let proxied = fixture.proxy.proxyURL(for: fixture.environment.serve("/many.mp4", source))

        // When 24 players each read 6 ranges through the proxy at once
        let matches = try await withThrowingTaskGroup(of: Int.self) { group in
            for player in 0..<24 {
                group.addTask {
                    var matched = 0
                    for round in 0..<6 {
                        let start = (player * 7_919 + round * 104_729) % (source.count - 200_000)
                        let range = "bytes=\(start)-\(start + 150_000)"
                        let (status, body, _) = try await fixture.get(proxied, range: range)
                        if status == 206, body == source[start...(start + 150_000)] { matched += 1 }
                    }
                    return matched
                }
            }
            return try await group.reduce(0, +)
        }

        // Then every answer was right, none refused, and the origin's ranges never overlapped: each chunk was
        // fetched once however many players wanted it
        #expect(matches == 144)
        #expect(fixture.proxy.requestCount == 144 && fixture.proxy.rejectedRequestCount == 0)
        let ranges = fixture.origin.requests(for: "/many.mp4").dropFirst().compactMap { record -> Range<Int>? in
            guard let spec = record.headers["range"]?.dropFirst(6).split(separator: "-"), spec.count == 2,
                let first = Int(spec[0]), let last = Int(spec[1])
            else { return nil }
            return first..<(last + 1)
        }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound })
    }

    @Test func downloadsAreServedWithNoOriginRequestAndHEADAnswersTheHeadOnly() async throws {
        // Given a downloaded progressive file and a downloaded HLS stream, and a proxy reading the downloads
        let fixture = try ProxyFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 300_000, seed: 73)
        let file = fixture.environment.serve("/offline.mp4", source, contentType: "video/mp4")
        let stream = fixture.origin.registerHLSStream(at: "/o", segments: 2)
        let master = fixture.origin.url(for: stream.masterPath)
        let downloads = try VideoDownloads(
            manager: fixture.environment.manager,
            configuration: .init(directory: fixture.environment.directory.url.appendingPathComponent("dl")))
        for url in [file, master] {
            _ = try await downloads.waitUntilFinished(downloads.enqueue(AssetRequest(url: url)).id)
        }
        let proxy = VideoProxy(
            video: VideoUtil(manager: fixture.environment.manager, downloads: downloads),
            hls: HLSUtil(manager: fixture.environment.manager, downloads: downloads))
        try proxy.start()
        defer { proxy.stop() }
        fixture.origin.resetLog()

        // When a player reads the file whole and by a range, asks HEAD, and walks the stream
        let whole = try await fixture.get(proxy.proxyURL(for: file))
        let part = try await fixture.get(proxy.proxyURL(for: file), range: "bytes=1000-1999")
        var head = URLRequest(url: proxy.proxyURL(for: file))
        head.httpMethod = "HEAD"
        let (headBody, headResponse) = try await URLSession.forTesting.data(for: head)
        let masterText = try await fixture.get(proxy.proxyURL(for: master)).body
        guard case .master(let parsed) = try HLSPlaylist.parse(masterText, url: master) else {
            Issue.record("not a master playlist")
            return
        }
        let downloaded = try #require(parsed.variants.max { $0.bandwidth < $1.bandwidth })
        let variant = try await fixture.get(downloaded.uri).body
        guard case .media(let media) = try HLSPlaylist.parse(variant, url: downloaded.uri) else {
            Issue.record("not a media playlist")
            return
        }
        for segment in media.segments { #expect(try await fixture.get(segment.uri).status == 200) }

        // Then everything came from the downloads: the origin saw nothing
        #expect(whole.status == 200 && whole.body == source)
        #expect(part.status == 206 && part.body == source[1000..<2000])
        let headStatus = (headResponse as? HTTPURLResponse)?.statusCode
        #expect(headStatus == 200 && headBody.isEmpty)
        #expect((headResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "300000")
        #expect(downloaded.bandwidth == 1_000_000 && media.segments.count == 2)
        #expect(fixture.origin.totalRequestCount == 0)
    }

    @Test func aProgressiveProxyNeedsNoHLSUtil() async throws {
        // Given a proxy made with a VideoUtil only
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let proxy = VideoProxy(video: VideoUtil(manager: environment.manager))
        try proxy.start()
        defer { proxy.stop() }
        let source = testBytes(count: 5_000, seed: 74)
        let file = environment.serve("/plain.mp4", source)
        let playlist = environment.serve("/s/index.m3u8", Data("#EXTM3U\n".utf8))

        // When a file and a playlist are asked for
        let (fileBody, _) = try await URLSession.forTesting.data(from: proxy.proxyURL(for: file))
        let (_, playlistResponse) = try await URLSession.forTesting.data(from: proxy.proxyURL(for: playlist))

        // Then the file is served, and the playlist is refused saying why
        #expect(fileBody == source)
        #expect((playlistResponse as? HTTPURLResponse)?.statusCode == 501)
    }
}

/// The proxy of `video-example --proxy` in a process of its own, read whole by a client: its resident
/// memory must grow by a bounded amount whatever the size of the file (it streams; it used to hold the
/// whole range, twice).
@Suite(
    "Proxy peak memory",
    .enabled(if: HelperProcess.isBuilt("video-example"), "needs video-example built beside the tests (swift build)")
)
struct ProxyMemoryTests {
    /// A resident size in bytes from `/proc/<pid>/status` (`VmRSS` or `VmHWM`).
    static func memory(_ field: String, of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
    }

    @Test func aProxyReadingA160MiBFileWholeGrowsByAtMost64MiB() async throws {
        // Given a 160 MiB file on the origin and a proxy in a child process
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let source = testBytes(count: 160 << 20, seed: 75)
        let url = environment.serve("/large.mp4", source, contentType: "video/mp4")
        let (process, reading) = try SpawnedProcess.readingOutput(
            HelperProcess.binDirectory.appendingPathComponent("video-example"),
            [url.absoluteString, "--proxy", "--cache", environment.directory.appending("proxy-cache").path])
        let exit = process.exit
        defer { if !exit.hasExited { kill(process.processIdentifier, SIGKILL) } }
        let line = try await offPool { () -> String in
            var bytes: [UInt8] = []
            while let byte = try reading.read(upToCount: 1)?.first, byte != 10 { bytes.append(byte) }
            return String(decoding: bytes, as: UTF8.self)
        }
        let proxied = try #require(URL(string: line))
        let before = try Self.memory("VmRSS", of: process.processIdentifier)

        // When a client reads the whole file through it (Range: bytes=0-, as players ask first)
        let client = try RawStreamingClient(port: try #require(proxied.port))
        client.send("GET \(proxied.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-\r\n\r\n")
        let head = try await offPool { try client.readHead() }
        let matched = try await offPool { client.readBody(count: source.count, expected: source) }
        let peak = try Self.memory("VmHWM", of: process.processIdentifier)

        // Then every byte came in order, and the proxy's peak stayed within 64 MiB of where it started
        #expect(head.status == 206 && matched == source.count)
        #expect(peak - before <= 64 << 20, "the proxy grew by \((peak - before) >> 20) MiB")
        kill(process.processIdentifier, SIGTERM)
        let status = await exit.status(within: .seconds(60))
        #expect(status == 0, "the proxy stops cleanly on SIGTERM")
    }
}
