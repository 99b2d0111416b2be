import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsVideo

/// The run without a URL: a 64 MiB resource played by ranges with seeks, then replayed from cache.
enum VideoTour {
    private static let mebibyte = 1 << 20
    /// What a player does: play, seek ahead, seek back over what it has, jump to the end.
    private static let plan: [(label: String, range: Range<Int>)] = [
        ("play from the start", 0..<(16 * mebibyte)),
        ("seek to 40 MiB", (40 * mebibyte)..<(48 * mebibyte)),
        ("seek back to 8 MiB", (8 * mebibyte)..<(24 * mebibyte)),
        ("seek to the last 4 MiB", (60 * mebibyte)..<(64 * mebibyte)),
    ]

    static func run(cacheDirectory: URL) async throws {
        let media = try await SampleMedia.make(avatarCount: 0, videoByteCount: 64 * mebibyte)
        guard let file = media.video else { return }
        let host = try SampleHost.start(media)
        defer { host.stop() }
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: cacheDirectory), loader: LocalFileLoader(), keyFactory: host.keyFactory)
        )
        let video = VideoUtil(manager: manager)
        let url = host.url(for: file.path)

        print("video-example: byte ranges through VideoUtil (1 MiB chunks in .disk)")
        print("  origin    \(host.origin.baseURL.absoluteString)  (embedded SampleOrigin, no network)")
        print("  resource  \(url.path): \(Formatting.bytes(file.data.count)) synthetic byte stream, not a real video")
        print("  cache     \(cacheDirectory.path)")
        let info = try await video.contentInfo(for: url)
        print(
            "  contentInfo: \(info.length) bytes, \(info.contentType ?? "no content type") "
                + "(its first request also cached chunk 0)")
        print("")

        for pass in ["First play", "Replay (same ranges)"] {
            print("\(pass)")
            try await play(url: url, video: video, expected: file.data)
        }

        let ranges = host.origin.requests(for: file.path).map { $0.headers["range"] ?? "(whole resource)" }
        print("Range requests the origin received: \(ranges.count)")
        for line in stride(from: 0, to: ranges.count, by: 3) {
            print("  " + ranges[line..<min(ranges.count, line + 3)].joined(separator: ", "))
        }
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager, utils: [("VideoUtil", video.statistics.description)])
    }

    /// Streams every range of the plan, checking the bytes, with a progress bar on a terminal.
    private static func play(url: URL, video: VideoUtil, expected: Data) async throws {
        let bar = ProgressBar(label: "  streaming", total: plan.reduce(0) { $0 + $1.range.count })
        var table = TextTable(header: ["segment", "MiB", "from cache", "from network", "requests", "time", "check"])
        for (label, range) in plan {
            let before = video.statistics
            let (matches, duration) = try await Formatting.timed { () async throws -> Bool in
                var offset = range.lowerBound
                var matches = true
                for try await piece in video.stream(for: url, range: range) {
                    if piece != expected[offset..<(offset + piece.count)] { matches = false }
                    offset += piece.count
                    bar.advance(by: piece.count)
                }
                return matches && offset == range.upperBound
            }
            let after = video.statistics
            table.add([
                label, "\(range.lowerBound / mebibyte)-\(range.upperBound / mebibyte)",
                Formatting.bytes(after.bytesServedFromCache - before.bytesServedFromCache),
                Formatting.bytes(after.bytesFetched - before.bytesFetched),
                String(after.rangeRequests - before.rangeRequests), Formatting.duration(duration),
                matches ? "ok" : "MISMATCH",
            ])
        }
        bar.finish()
        table.print()
        print("")
    }
}
