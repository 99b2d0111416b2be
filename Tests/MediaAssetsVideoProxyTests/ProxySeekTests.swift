import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin
import TestSupport
import Testing

/// A real player's cold seek through the proxy costs the origin about what the same seek costs read directly:
/// the bytes the player reads plus the read-ahead, never whole windows from each position it touches.
@Suite(
    "Proxy cold seek with ffmpeg",
    .enabled(if: ChildProcess.executable("ffmpeg") != nil, "needs ffmpeg on PATH (CI installs it)")
)
struct ProxySeekTests {
    /// Makes a 20-second MP4 of about 25 MB: a test pattern under fresh noise in every frame, so no frame
    /// compresses well (MPEG-4 part 2, quick to encode; a key frame every 5 seconds).
    private static func makeMovie(in directory: URL) async throws -> Data {
        let ffmpeg = try #require(ChildProcess.executable("ffmpeg"))
        let movie = directory.appendingPathComponent("seek.mp4")
        let made = try await ChildProcess.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=duration=20:size=640x360:rate=25,noise=alls=60:allf=t", "-c:v", "mpeg4", "-b:v", "2500k",
                "-g", "125", movie.path,
            ],
            timeout: .seconds(600))
        #expect(made.status == 0, "ffmpeg could not make the movie: \(made.output)")
        return try Data(contentsOf: movie)
    }

    /// Runs `ffmpeg -ss 12 -i url -frames:v 1 -f null -`: a seek to 12 s and one frame decoded.
    private static func seek(_ url: URL) async throws {
        let ffmpeg = try #require(ChildProcess.executable("ffmpeg"))
        let outcome = try await ChildProcess.run(
            ffmpeg, ["-v", "error", "-ss", "12", "-i", url.absoluteString, "-frames:v", "1", "-f", "null", "-"],
            timeout: .seconds(300))
        #expect(outcome.status == 0, "ffmpeg -ss 12 -i \(url) failed: \(outcome.output)")
    }

    /// The body bytes the origin sent for `path` once every exchange has ended.
    private static func bytesSent(_ origin: SampleOrigin, _ path: String) async throws -> Int {
        try await origin.waitForFinishedRequests(path: path, count: origin.requestCount(for: path))
        return origin.requests(for: path).map(\.bodyBytesSent).reduce(0, +)
    }

    @Test func aColdSeekThroughTheProxyCostsTheOriginAtMostAQuarterMoreThanADirectOne() async throws {
        // Given a 25 MB MP4 on the origin
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let movie = try await Self.makeMovie(in: environment.directory.url)
        let url = environment.serve("/seek.mp4", movie, contentType: "video/mp4")

        // When ffmpeg seeks to 12 s and decodes a frame straight from the origin
        try await Self.seek(url)
        let direct = try await Self.bytesSent(environment.origin, "/seek.mp4")
        environment.origin.resetLog()

        // And does the same through the proxy, over an empty chunk cache of 1 MiB chunks
        let video = VideoUtil(manager: environment.manager)
        let proxy = VideoProxy(video: video)
        try proxy.start()
        defer { proxy.stop() }
        try await Self.seek(proxy.proxyURL(for: url))
        let proxied = try await Self.bytesSent(environment.origin, "/seek.mp4")
        await video.waitForPendingStores()

        // Then the origin sent at most 1.25 times the direct read plus one chunk
        let ranges = environment.origin.requests(for: "/seek.mp4").compactMap { $0.headers["range"] }
        let figures = Comment(
            rawValue: "movie \(movie.count) B, direct \(direct) B, through the proxy \(proxied) B in \(ranges)")
        #expect(direct > 0 && proxied > 0, figures)
        #expect(Double(proxied) <= 1.25 * Double(direct) + Double(1 << 20), figures)
        // And no chunk was asked twice
        let starts = ranges.compactMap { Int($0.dropFirst(6).prefix { $0 != "-" }) }
        #expect(Set(starts).count == starts.count, figures)
    }
}
