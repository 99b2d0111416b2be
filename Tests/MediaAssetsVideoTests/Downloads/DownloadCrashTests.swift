import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `video-example URL --download DIR` killed with SIGKILL mid-download, again and again, then run to its end:
/// the file ends byte-exact, and each run fetched only what the killed one had not written (counted at the
/// origin). Like `.ci/crash-test` for the cache, with the example as the helper process.
@Suite(
    "Download crash consistency",
    .enabled(if: HelperProcess.isBuilt("video-example"), "needs video-example built beside the tests (swift build)")
)
struct DownloadCrashTests {
    /// Starts `video-example` downloading `url` into `directory`; output goes nowhere (no pipe to fill). The
    /// child waits on a stalled answer for as long as the suite's polls do (600 s, not URLSession's 60): on a busy
    /// machine this process may see the child's file late, and the child must still be in its first request.
    private static func startDownload(_ url: URL, into directory: URL, cache: URL) throws -> (
        SpawnedProcess, ProcessExit
    ) {
        let process = try SpawnedProcess(
            HelperProcess.binDirectory.appendingPathComponent("video-example"),
            [url.absoluteString, "--download", directory.path, "--timeout", "600", "--cache", cache.path])
        return (process, process.exit)
    }

    /// Waits for the exit without holding a thread; returns the status.
    private static func exitStatus(of exit: ProcessExit) async -> Int32? {
        await exit.status(within: .seconds(120))
    }

    private static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func aDownloadKilledThreeTimesResumesFromWhatIsOnDiskAndEndsByteExact() async throws {
        // Given a 32 MiB file on an origin whose answers stall 2.5 MiB into their body (so each run is killed
        // mid-download however slow the machine, with 2 MiB or more written and the rest of a batch in memory)
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let source = testBytes(count: 32 << 20, seed: 61)
        let url = environment.serve(
            "/kill.mp4", source, contentType: "video/mp4", behavior: .init(stallAfterBodyBytes: (2 << 20) + (512 << 10))
        )
        let directory = environment.directory.url.appendingPathComponent("downloads")
        let cache = environment.directory.url.appendingPathComponent("example-cache")
        let media = directory.appendingPathComponent("d1/media.mp4")

        // When the download is killed with SIGKILL three times, each run once it has written 2 MiB more
        var killedAt: [Int] = []
        for _ in 0..<3 {
            let before = Self.size(of: media)
            environment.origin.resetLog()
            let (process, exit) = try Self.startDownload(url, into: directory, cache: cache)
            try await waitUntil("the download to pass \(before + (2 << 20)) bytes") {
                Self.size(of: media) >= before + (2 << 20) || exit.hasExited
            }
            kill(process.processIdentifier, SIGKILL)
            _ = await Self.exitStatus(of: exit)
            let after = Self.size(of: media)
            killedAt.append(after)

            // Then each run asked for the bytes from where the last one stopped
            let first = try #require(environment.origin.requests(for: "/kill.mp4").first)
            let start = before == 0 ? "bytes=0-" : "bytes=\(before)-"
            #expect(
                first.headers["range"]?.hasPrefix(start) == true, "\(first.headers["range"] ?? "-") after \(before)")
            #expect(try Data(contentsOf: media) == source.prefix(after), "what is on disk is the source's head")
        }

        // And run once more to its end, on a healthy origin
        environment.origin.setBehavior("/kill.mp4", .normal)
        environment.origin.resetLog()
        let (_, exit) = try Self.startDownload(url, into: directory, cache: cache)
        #expect(await Self.exitStatus(of: exit) == 0)

        // Then the file is byte-exact, and the last run fetched exactly the bytes the kills had left missing
        #expect(killedAt == killedAt.sorted() && (killedAt.last ?? 0) < source.count)
        #expect(try Data(contentsOf: media) == source)
        try await environment.origin.waitForFinishedRequests(
            path: "/kill.mp4", count: environment.origin.requestCount(for: "/kill.mp4"))
        let sent = environment.origin.requests(for: "/kill.mp4").map(\.bodyBytesSent).reduce(0, +)
        #expect(sent == source.count - (killedAt.last ?? 0))
        let index = try String(contentsOf: directory.appendingPathComponent("downloads.json"), encoding: .utf8)
        #expect(index.contains("\"state\":\"completed\""))
    }

    @Test func aOneMegabyteDownloadKilledAfter450KBResumesFromWhatArrivedAndEndsByteExact() async throws {
        // Given a 1 MB file on an origin whose answer stalls 450,000 bytes into its body
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let source = testBytes(count: 1_000_000, seed: 62)
        let url = environment.serve(
            "/short.mp4", source, contentType: "video/mp4", behavior: .init(stallAfterBodyBytes: 450_000))
        let directory = environment.directory.url.appendingPathComponent("downloads")
        let cache = environment.directory.url.appendingPathComponent("example-cache")
        let media = directory.appendingPathComponent("d1/media.mp4")

        // When a child process downloading it is killed with SIGKILL once the bytes have arrived
        let (process, exit) = try Self.startDownload(url, into: directory, cache: cache)
        try await waitUntil("the child's file to hold the 450,000 bytes that arrived") {
            Self.size(of: media) == 450_000 || exit.hasExited
                || environment.origin.requests(for: "/short.mp4").contains(where: \.isFinished)
        }
        // (while its request is still under way: bytes written only when the child gave up on the stalled
        // answer would not show that they are written as they arrive)
        let underWay = environment.origin.requests(for: "/short.mp4").map { !$0.isFinished }
        kill(process.processIdentifier, SIGKILL)
        _ = await Self.exitStatus(of: exit)
        #expect(underWay == [true], "the child's one request was under way when its file held 450,000 bytes")
        #expect(Self.size(of: media) == 450_000)

        // And the download is resumed in this process, on a healthy origin
        environment.origin.setBehavior("/short.mp4", .normal)
        environment.origin.resetLog()
        let downloads = try VideoDownloads(manager: environment.manager, configuration: .init(directory: directory))
        let resumed = try #require(downloads.downloads.first)
        let done = try await downloads.waitUntilFinished(resumed.id)
        await downloads.close()

        // Then the resumed request started at the 450,000 bytes on disk (at least 300,000), fetched only the
        // rest, and the file is byte-exact
        #expect(done.state == .completed)
        #expect(try Data(contentsOf: media) == source)
        try await environment.origin.waitForFinishedRequests(path: "/short.mp4", count: 1)
        let requests = environment.origin.requests(for: "/short.mp4")
        #expect(requests.compactMap { $0.headers["range"] } == ["bytes=450000-999999"])
        let start = requests.first?.headers["range"].flatMap { Int($0.dropFirst(6).prefix { $0 != "-" }) } ?? 0
        #expect(start >= 300_000)
        #expect(requests.map(\.bodyBytesSent).reduce(0, +) == 550_000)
    }
}
