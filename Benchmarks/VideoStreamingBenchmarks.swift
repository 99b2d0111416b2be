import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rows of issue 14: HLS offline download against ffmpeg, the proxy against the origin, and the
/// memory a slow consumer's stream holds.
func runVideoStreamingBenchmarks(table: BenchmarkTable) async throws {
    try await benchmarkSlowConsumerMemory(table: table)
    try await benchmarkProxyRanges(table: table)
    try await benchmarkHLSDownload(table: table)
}

/// A 256 MiB resource streamed to a consumer slower than the loopback origin.
private func benchmarkSlowConsumerMemory(table: BenchmarkTable) async throws {
    let mebibyte = 1 << 20
    let source = Data(count: 256 * mebibyte)
    let origin = SampleOrigin()
    origin.register("/big.mp4", data: source, contentType: "video/mp4")
    try origin.start()
    defer { origin.stop() }
    let directory = try makeScratchDirectory("video-slow-consumer")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory, sizeLimit: 1 << 30)))
    let video = VideoUtil(manager: manager)
    let url = origin.url(for: "/big.mp4")

    var received = 0
    for try await piece in video.stream(for: url, range: 0..<source.count) {
        received += piece.count
        try await Task.sleep(for: .milliseconds(2))  // a player draining its buffer at playback speed
    }
    guard received == source.count else { throw CocoaError(.fileReadCorruptFile) }
    // The baseline: what a reader holds that takes the range in one piece (as the stream did before
    // backpressure, when the consumer lagged behind the network).
    let whole = try await video.data(for: url, range: 0..<source.count)
    table.add(
        "video: slow consumer of a 256 MiB stream, buffer peak", unit: "MiB",
        median: Double(video.statistics.streamBufferPeak) / Double(mebibyte),
        baseline: "data(for:) of the same range", baselineMedian: Double(whole.count) / Double(mebibyte)
    )
}

/// A fully cached 64 MiB file read by 1 MiB ranges through the proxy, against the origin serving it.
private func benchmarkProxyRanges(table: BenchmarkTable) async throws {
    let mebibyte = 1 << 20
    let count = 64
    let directory = try makeScratchDirectory("video-proxy")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("movie.mp4")
    try Data((0..<(count * mebibyte)).lazy.map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
    let origin = SampleOrigin()
    origin.register("/movie.mp4", data: try Data(contentsOf: file, options: .alwaysMapped), contentType: "video/mp4")
    try origin.start()
    defer { origin.stop() }
    let manager = try AssetsManager(
        configuration: .init(
            disk: .init(directory: directory.appendingPathComponent("cache"), sizeLimit: 1 << 30)))
    let proxy = VideoProxy(video: VideoUtil(manager: manager), hls: HLSUtil(manager: manager))
    try proxy.start()
    defer { proxy.stop() }
    let direct = origin.url(for: "/movie.mp4")
    let proxied = proxy.proxyURL(for: direct)
    try await proxy.video.prefetch(for: direct, byteCount: count * mebibyte)

    let session = URLSession(configuration: .ephemeral)
    func readAll(_ url: URL) async throws {
        for index in 0..<count {
            var request = URLRequest(url: url)
            request.setValue("bytes=\(index * mebibyte)-\((index + 1) * mebibyte - 1)", forHTTPHeaderField: "Range")
            let (body, _) = try await session.data(for: request)
            guard body.count == mebibyte else { throw CocoaError(.fileReadCorruptFile) }
        }
    }
    origin.resetLog()
    let viaProxy = try await medianSecondsAsync(repetitions: 5) { try await readAll(proxied) }
    guard origin.totalRequestCount == 0 else { throw CocoaError(.fileReadUnknown) }
    let fromOrigin = try await medianSecondsAsync(repetitions: 5) { try await readAll(direct) }
    table.add(
        "video: proxy, cached 64 MiB by 1 MiB ranges", unit: "ms", median: viaProxy * 1_000,
        baseline: "embedded origin serving the file", baselineMedian: fromOrigin * 1_000
    )
}

/// An ffmpeg-made HLS stream downloaded for offline play, against `ffmpeg -i URL -c copy`; skipped
/// without ffmpeg.
private func benchmarkHLSDownload(table: BenchmarkTable) async throws {
    guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile)
    else {
        print("video: HLS download vs ffmpeg skipped: ffmpeg is absent (apt-get install ffmpeg)")
        return
    }
    let directory = try makeScratchDirectory("video-hls")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("source")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    try runTool(
        ffmpeg,
        [
            "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=60:size=640x360:rate=25", "-f", "lavfi",
            "-i", "sine=frequency=440:duration=60", "-c:v", "mpeg2video", "-b:v", "2M", "-c:a", "aac", "-f", "hls",
            "-hls_time", "4", "-hls_playlist_type", "vod", "-hls_segment_filename", source.path + "/seg%03d.ts",
            source.path + "/index.m3u8",
        ])
    let origin = SampleOrigin()
    try origin.registerDirectory(source, at: "/stream")
    try origin.start()
    defer { origin.stop() }
    let url = origin.url(for: "/stream/index.m3u8")

    var attempt = 0
    let download = try await medianSecondsAsync(repetitions: 3) {
        attempt += 1
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("cache-\(attempt)"))
            ))
        _ = try await HLSUtil(manager: manager).download(
            AssetRequest(url: url), to: directory.appendingPathComponent("offline-\(attempt)")
        )
    }
    let copy = try medianSeconds(repetitions: 3) {
        attempt += 1
        try runTool(
            ffmpeg,
            [
                "-v", "error", "-y", "-i", url.absoluteString, "-c", "copy",
                directory.appendingPathComponent("copy-\(attempt).ts").path,
            ])
    }
    table.add(
        "video: HLS offline download, 60 s stream (cold cache)", unit: "ms", median: download * 1_000,
        baseline: "ffmpeg -i URL -c copy", baselineMedian: copy * 1_000
    )
}

private func runTool(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
}
