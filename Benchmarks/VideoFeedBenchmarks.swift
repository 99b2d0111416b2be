import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import SampleOrigin

#if canImport(Glibc)
import Glibc
#endif

// Rows of issue 32, in one run:
// - a poster at 60 % of a 30 MB 1080p MP4 whose moov is at the end, served by nginx (else SampleOrigin): the
//   origin bytes against the moov plus the GOP that holds the frame plus 1 MiB, the time against
//   `ffmpeg -ss T -i URL -frames:v 1` reading the same URL straight (writing the same 320 px JPEG), the same
//   poster warm, and the peak memory of a cold poster in a child process (`benchmarks --poster-peak URL`)
//   against ffmpeg's own peak;
// - a feed of 30 MP4s (10 s each, moov at the end) from a SampleOrigin whose connections share one bandwidth
//   limit (nginx limits each connection, not the link) and whose answers wait 40 ms (a round trip to an edge),
//   swiped every 3 s: time from the swipe to the first
//   byte the player reads, p50 and p95, with the preloader against without it, and the origin bytes against
//   the bytes played plus the budget.
// Needs ffmpeg and ffprobe (and FFmpeg's libraries): without them the group prints why and adds no row.

private let posterSeconds = 30
private let posterPosition = 0.6
private let repetitions = 3

func runVideoFeedBenchmarks(table: BenchmarkTable) async throws {
    guard let ffmpeg = executableOnPath("ffmpeg")?.path, let ffprobe = executableOnPath("ffprobe")?.path else {
        print("video-feed: skipped, ffmpeg and ffprobe are not on PATH (apt install ffmpeg)")
        return
    }
    let directory = try makeScratchDirectory("video-feed")
    defer { try? FileManager.default.removeItem(at: directory) }
    try await runPosterRows(table: table, ffmpeg: ffmpeg, ffprobe: ffprobe, directory: directory)
    try await runFeedRows(table: table, ffmpeg: ffmpeg, directory: directory)
}

// MARK: Posters

private func runPosterRows(table: BenchmarkTable, ffmpeg: String, ffprobe: String, directory: URL) async throws {
    let media = directory.appendingPathComponent("media", isDirectory: true)
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let movie = media.appendingPathComponent("movie.mp4")
    // 1080p at about 8 Mbit/s: noise over a test pattern keeps every frame expensive; a keyframe every 2.5 s, so
    // the frame at 18 s is half a second into its group and the whole group up to it is decoded.
    try run(
        ffmpeg,
        [
            "-v", "error", "-y", "-f", "lavfi", "-i",
            "testsrc2=duration=\(posterSeconds):size=1920x1080:rate=30,noise=alls=12:allf=t", "-c:v", "libx264",
            "-preset", "ultrafast", "-b:v", "8M", "-maxrate", "8M", "-bufsize", "4M", "-g", "75",
            "-pix_fmt", "yuv420p", movie.path,
        ])
    let size = try FileManager.default.attributesOfItem(atPath: movie.path)[.size] as? Int ?? 0
    let time = Double(posterSeconds) * posterPosition
    let (moov, gop) = try boxesAndGroup(of: movie, at: time, ffprobe: ffprobe)
    print("video-feed: poster movie \(size) B, moov \(moov) B, GOP at \(time) s \(gop) B")
    let origin = try BenchmarkOrigin.start(serving: movie, scratch: directory)
    defer { origin.stop() }

    // ffmpeg straight from the origin: seek, decode one frame, scale to 320 px, write a JPEG.
    var direct: [Double] = []
    var directBytes: [Double] = []
    for round in 0..<repetitions {
        origin.resetBytesSent()
        let output = directory.appendingPathComponent("direct-\(round).jpg")
        let start = ContinuousClock.now
        try run(
            ffmpeg,
            [
                "-v", "error", "-y", "-ss", String(time), "-i", origin.url.absoluteString, "-frames:v", "1",
                "-vf", "scale=320:-2", output.path,
            ])
        direct.append(seconds(since: start))
        directBytes.append(Double(try await settledBytes(origin)))
    }
    // Ours, cold: a fresh cache each round; then warm: the same still asked again.
    var cold: [Double] = []
    var coldBytes: [Double] = []
    var warm: [Double] = []
    for round in 0..<repetitions {
        origin.resetBytesSent()
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("cache-\(round)"), sizeLimit: 1 << 30)))
        let video = VideoUtil(manager: manager, configuration: .init(chunkSize: 256 << 10))
        let options = VideoFrameOptions(maxPixelSize: 320)
        let start = ContinuousClock.now
        _ = try await video.frame(for: origin.url, at: .fraction(posterPosition), options: options)
        cold.append(seconds(since: start))
        await video.waitForPendingStores()
        coldBytes.append(Double(try await settledBytes(origin)))
        for _ in 0..<10 {
            let again = VideoUtil(manager: manager, configuration: .init(chunkSize: 256 << 10))
            let start = ContinuousClock.now
            _ = try await again.frame(for: origin.url, at: .fraction(posterPosition), options: options)
            warm.append(seconds(since: start))
        }
    }
    let directTime = median(direct)
    table.add(
        "video-feed: poster at 60 % of 30 MB, origin bytes", unit: "MiB", median: median(coldBytes) / 1_048_576,
        baseline: "moov + its GOP + 1 MiB", baselineMedian: Double(moov + gop + (1 << 20)) / 1_048_576, target: 1.0)
    table.add(
        "video-feed: the same, ffmpeg straight", unit: "MiB", median: median(directBytes) / 1_048_576,
        baseline: "moov + its GOP + 1 MiB", baselineMedian: Double(moov + gop + (1 << 20)) / 1_048_576)
    table.add(
        "video-feed: poster at 60 %, cold", unit: "ms", median: median(cold) * 1e3,
        baseline: "ffmpeg -ss T -i URL -frames:v 1", baselineMedian: directTime * 1e3, target: 1.0)
    table.add(
        "video-feed: poster at 60 %, warm", unit: "ms", median: median(warm) * 1e3,
        baseline: "ffmpeg -ss T -i URL -frames:v 1", baselineMedian: directTime * 1e3,
        target: 0.002 / directTime)

    // Peak memory of a cold poster in a child process, against ffmpeg's peak doing the same.
    var peaks: [Double] = []
    var ffmpegPeaks: [Double] = []
    for round in 0..<repetitions {
        peaks.append(try posterPeakInChild(url: origin.url, cache: directory.appendingPathComponent("peak-\(round)")))
        ffmpegPeaks.append(
            try peakOfCommand(
                ffmpeg,
                [
                    "-v", "error", "-y", "-ss", String(time), "-i", origin.url.absoluteString, "-frames:v", "1",
                    "-vf", "scale=320:-2", directory.appendingPathComponent("peak-\(round).jpg").path,
                ]))
    }
    table.add(
        "video-feed: poster peak memory above idle, 1080p", unit: "MiB", median: median(peaks) / 1_048_576,
        baseline: "ffmpeg's whole peak RSS, same poster", baselineMedian: median(ffmpegPeaks) / 1_048_576,
        target: 32 * 1_048_576 / median(ffmpegPeaks))
}

/// The size of the `moov` box, and the bytes from the keyframe at or before `time` to the next keyframe.
private func boxesAndGroup(of movie: URL, at time: Double, ffprobe: String) throws -> (moov: Int, gop: Int) {
    let data = try Data(contentsOf: movie, options: .alwaysMapped)
    var offset = 0
    var moov = 0
    while offset + 8 <= data.count {
        var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
        if size == 1, offset + 16 <= data.count {
            size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
        }
        if size == 0 { size = data.count - offset }
        if type == "moov" { moov = size }
        guard size >= 8 else { break }
        offset += size
    }
    let packets = try output(
        ffprobe,
        [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,flags", "-of", "csv=p=0",
            movie.path,
        ])
    let keyframes: [(time: Double, position: Int)] = packets.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: ",")
        guard fields.count >= 3, fields[2].hasPrefix("K"), let time = Double(fields[0]), let position = Int(fields[1])
        else { return nil }
        return (time, position)
    }.sorted { $0.time < $1.time }
    let before = keyframes.last { $0.time <= time } ?? keyframes.first!
    let after = keyframes.first { $0.time > time }
    return (moov, (after?.position ?? data.count - moov) - before.position)
}

/// The bytes nginx logged once its log stops growing (a request is logged when its connection ends).
private func settledBytes(_ origin: BenchmarkOrigin) async throws -> Int {
    var last = -1
    var bytes = origin.bytesSent()
    while bytes != last {
        last = bytes
        try await Task.sleep(for: .milliseconds(100))
        bytes = origin.bytesSent()
    }
    return bytes
}

/// `benchmarks --poster-peak URL CACHE` in a child process: its VmHWM growth over its idle VmRSS.
private func posterPeakInChild(url: URL, cache: URL) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--poster-peak", url.absoluteString, cache.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0, let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw BenchmarkError("--poster-peak failed: \(text)") }
    return value
}

/// The child side: one cold poster at 60 %, then the growth of the peak resident size over idle, in bytes.
func runPosterPeakInThisProcess(url: String, cache: String) async throws {
    let manager = try AssetsManager(
        configuration: .init(disk: .init(directory: URL(fileURLWithPath: cache), sizeLimit: 1 << 30)))
    let video = VideoUtil(manager: manager, configuration: .init(chunkSize: 256 << 10))
    _ = FFmpegLibrary.system  // the libraries are mapped before the idle reading, as in a running app
    let idle = statusBytes("VmRSS")
    _ = try await video.frame(
        for: URL(string: url)!, at: .fraction(posterPosition), options: VideoFrameOptions(maxPixelSize: 320))
    print(statusBytes("VmHWM") - idle)
}

/// The peak resident size of a command (its maxrss, as /usr/bin/time reports it), in bytes.
private func peakOfCommand(_ command: String, _ arguments: [String]) throws -> Double {
    let text = try output("/usr/bin/time", ["-f", "%M", command] + arguments, standardError: true)
    guard let kilobytes = text.split(separator: "\n").last.flatMap({ Double($0) }) else {
        throw BenchmarkError("/usr/bin/time printed \(text)")
    }
    return kilobytes * 1024
}

// MARK: The feed

private let feedItems = 30
private let swipeInterval: Duration = .seconds(3)
private let feedBandwidth = 4 << 20  // 32 Mbit/s for every connection together
private let feedBudget = 16 << 20
/// Each request waits this long before its answer, as a round trip to a CDN edge does (on loopback there is none).
private let feedLatency: Duration = .milliseconds(40)

private func runFeedRows(table: BenchmarkTable, ffmpeg: String, directory: URL) async throws {
    let feed = directory.appendingPathComponent("feed", isDirectory: true)
    try FileManager.default.createDirectory(at: feed, withIntermediateDirectories: true)
    // One 300 s 640x360 encode cut at keyframes into 30 MP4s of 10 s (each its own moov, at its end).
    try run(
        ffmpeg,
        [
            "-v", "error", "-y", "-f", "lavfi", "-i",
            "testsrc2=duration=\(feedItems * 10):size=640x360:rate=30,noise=alls=8:allf=t", "-c:v", "libx264",
            "-preset", "ultrafast", "-b:v", "1500k", "-g", "60", "-pix_fmt", "yuv420p", "-f", "segment",
            "-segment_time", "10", "-reset_timestamps", "1", feed.appendingPathComponent("%02d.mp4").path,
        ])
    var without: [Double] = []
    var with: [Double] = []
    var bytesWith: (origin: Int, played: Int) = (0, 0)
    for preloads in [false, true] {
        let origin = SampleOrigin()
        let paths = try origin.registerDirectory(feed, at: "/feed").sorted().filter { $0.hasSuffix(".mp4") }
        try origin.start()
        defer { origin.stop() }
        origin.setBandwidthLimit(bytesPerSecond: feedBandwidth)
        var behavior = SampleOrigin.Behavior.normal
        behavior.latency = feedLatency
        for path in paths { origin.setBehavior(path, behavior) }
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("feed-cache-\(preloads)"), sizeLimit: 1 << 30)))
        let video = VideoUtil(manager: manager, configuration: .init(chunkSize: 256 << 10))
        let items = paths.map { AssetRequest(url: origin.url(for: $0)) }
        let preloader =
            preloads
            ? VideoPreloader(
                video: video,
                configuration: .init(itemsAhead: 3, itemsBehind: 1, amount: .seconds(3), byteBudget: feedBudget))
            : nil
        preloader?.setItems(items)
        var firstBytes: [Double] = []
        var played = 0
        for index in items.indices {
            preloader?.setCurrentIndex(index)
            let swipe = ContinuousClock.now
            let deadline = swipe + swipeInterval
            // The player reads from the start as fast as the link allows until the next swipe.
            let player = Task { () -> (first: Double?, bytes: Int) in
                var first: Double?
                var bytes = 0
                let length = try await video.contentInfo(for: items[index]).length
                for try await piece in video.stream(for: items[index], range: 0..<length) {
                    if first == nil { first = seconds(since: swipe) }
                    bytes += piece.count
                    if ContinuousClock.now >= deadline { break }
                }
                return (first, bytes)
            }
            try await Task.sleep(until: deadline)
            player.cancel()
            let outcome = try await player.value
            firstBytes.append(outcome.first ?? seconds(since: swipe))
            played += outcome.bytes
        }
        preloader?.stop()
        await video.waitForPendingStores()
        let originBytes = paths.flatMap { origin.requests(for: $0) }.map(\.bodyBytesSent).reduce(0, +)
        if preloads { with = firstBytes; bytesWith = (originBytes, played) } else { without = firstBytes }
        print("video-feed: preloader \(preloads), origin \(originBytes) B, played \(played) B")
    }
    table.add(
        "video-feed: swipe to 1st byte p50, 40 ms RTT, preloaded", unit: "ms", median: percentile(with, 0.5) * 1e3,
        baseline: "the same feed without the preloader", baselineMedian: percentile(without, 0.5) * 1e3)
    table.add(
        "video-feed: swipe to 1st byte p95, 40 ms RTT, preloaded", unit: "ms", median: percentile(with, 0.95) * 1e3,
        baseline: "the same feed without the preloader", baselineMedian: percentile(without, 0.95) * 1e3,
        target: 0.2)
    table.add(
        "video-feed: origin bytes, preloaded", unit: "MiB", median: Double(bytesWith.origin) / 1_048_576,
        baseline: "bytes played + the budget", baselineMedian: Double(bytesWith.played + feedBudget) / 1_048_576,
        target: 1.0)
}

// MARK: Helpers

private func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

private func run(_ command: String, _ arguments: [String]) throws {
    _ = try output(command, arguments)
}

private func output(_ command: String, _ arguments: [String], standardError: Bool = false) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command)
    process.arguments = arguments
    let pipe = Pipe()
    if standardError {
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
    } else {
        process.standardOutput = pipe
    }
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("\(command) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}
