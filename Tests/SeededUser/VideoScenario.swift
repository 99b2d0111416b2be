import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin
import Synchronization
import TestSupport

/// Video as players read it: through `VideoUtil` (a head, the index at the tail, seeks, streams abandoned
/// mid-way), and through the proxy, where a player opens `bytes=X-` and hangs up once it has what it needs,
/// compared with the same reads straight from the origin; with ffmpeg and ffprobe reading a real MP4 where
/// they are installed.
enum VideoScenario {
    static func run(_ context: inout ScenarioContext) async throws {
        try await utilReads(&context)
        try await proxyReads(&context)
        try await ffmpegReads(&context)
        try await feedReads(&context)
    }

    /// Reads through `VideoUtil` (its default chunks and windows): every byte as the origin's; origin bytes at
    /// most the size, plus a chunk per cold seek and a window per stream abandoned mid-way.
    static func utilReads(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let manager = try context.makeManager("video-util")
        let video = VideoUtil(manager: manager)
        let chunk = video.configuration.chunkSize
        let window = max(4 * chunk, video.configuration.windowSize)
        let size = context.int((4 << 20)...(12 << 20))
        let data = testBytes(count: size, seed: context.seed &+ 101)
        let path = "/video/util.mp4"
        origin.register(path, data: data, contentType: "video/mp4")
        let url = origin.url(for: path)
        var cached = Set<Int>()
        var (coldSeeks, abandoned, reads, bytesRead) = (0, 0, 0, 0)
        func read(_ range: Range<Int>, stream: Bool, stopAfter: Int?) async {
            reads += 1
            if !cached.contains(range.lowerBound / chunk) { coldSeeks += 1 }
            do {
                var got = Data()
                if stream {
                    for try await piece in video.stream(for: url, range: range) {
                        got.append(piece)
                        if let stopAfter, got.count >= stopAfter { break }
                    }
                } else {
                    got = try await video.data(for: url, range: range)
                }
                let end = min(range.upperBound, range.lowerBound + got.count)
                log.check(
                    got.prefix(end - range.lowerBound) == data[range.lowerBound..<end], "bytes",
                    "VideoUtil \(stream ? "stream" : "data") \(range): bytes differ from the origin's")
                bytesRead += got.count
                if let stopAfter, stopAfter < range.count {
                    abandoned += 1
                    // Only the chunks the reader went through are surely whole.
                    for index in (range.lowerBound / chunk)..<(end / chunk) { cached.insert(index) }
                } else {
                    log.check(got.count == range.count, "bytes", "VideoUtil \(range): \(got.count) bytes read")
                    for index in (range.lowerBound / chunk)...((range.upperBound - 1) / chunk) { cached.insert(index) }
                }
            } catch {
                log.violate("typed-errors", "VideoUtil read \(range): \(errorName(error))")
            }
        }
        // A player opens the head, the index at the tail, then seeks.
        await read(0..<context.int((16 << 10)...(256 << 10)), stream: true, stopAfter: nil)
        await read((size - context.int((64 << 10)...(1 << 20)))..<size, stream: false, stopAfter: nil)
        for _ in 0..<context.int(4...10) {
            let start = context.int(0...(size - 1))
            let length = context.int((64 << 10)...(3 << 20))
            let range = start..<min(size, start + length)
            let stops = context.chance(0.3)
            await read(
                range, stream: context.chance(0.7) || stops, stopAfter: stops ? context.int(1...range.count) : nil)
        }
        await video.manager.waitForPendingWrites()
        await origin.settle(paths: [path])
        let sent = origin.resourceBytesSent(path)
        let bound = size + chunk * coldSeeks + window * abandoned
        log.check(
            sent <= bound, "origin-bytes",
            "VideoUtil: the origin sent \(sent) bytes of a \(size)-byte video; at most \(bound) allowed "
                + "(\(coldSeeks) cold seeks, \(abandoned) streams abandoned)")
        // The util's counters against the origin's log: one request per load (no fault, no retry here), of which an
        // abandoned stream's next one may be cancelled before it reached the origin; no more bytes than it sent.
        let statistics = video.statistics
        let stats = KnownDefect.stats.rawValue
        let logged = origin.getCount(path)
        log.check(
            (logged...(logged + abandoned)).contains(statistics.rangeRequests), stats,
            "VideoUtil.statistics.rangeRequests \(statistics.rangeRequests), the origin's log \(logged) "
                + "(\(abandoned) streams abandoned)")
        log.check(
            statistics.bytesFetched <= sent, stats,
            "VideoUtil.statistics.bytesFetched \(statistics.bytesFetched) > the \(sent) bytes the origin sent")
        await manager.shutdown()
        log.note(
            "VideoUtil: \(reads) reads of a \(size >> 20) MiB video (\(coldSeeks) cold, \(abandoned) abandoned), "
                + "\(bytesRead) bytes checked; origin sent \(sent) ≤ \(bound)")
    }

    /// The same player reads straight from the origin and through the proxy (a cold cache): every byte as the
    /// origin's, and the proxy's origin bytes at most 1.25 × the direct reads' + 1 MiB.
    static func proxyReads(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let size = context.int((12 << 20)...(24 << 20))
        let data = testBytes(count: size, seed: context.seed &+ 202)
        origin.register("/video/direct.mp4", data: data, contentType: "video/mp4")
        origin.register("/video/proxied.mp4", data: data, contentType: "video/mp4")
        // The reads a demuxer makes: the head, the index at the tail, then a seek or a few, each hanging up once
        // it has what it needs.
        var plan: [(start: Int, count: Int)] = [(0, context.int((32 << 10)...(256 << 10)))]
        plan.append((size - context.int((64 << 10)...(512 << 10)), 1 << 30))
        for _ in 0..<context.int(1...4) {
            plan.append((context.int(0...(size - 1)), context.int((64 << 10)...(1 << 20))))
        }
        let manager = try context.makeManager("video-proxy")
        let proxy = VideoProxy(video: VideoUtil(manager: manager))
        try proxy.start()
        defer { proxy.stop() }
        let proxyPath = proxy.proxyURL(for: origin.url(for: "/video/proxied.mp4")).path
        var checked = 0
        for (start, count) in plan {
            for (port, path, name) in [(origin.port, "/video/direct.mp4", "origin"), (proxy.port, proxyPath, "proxy")] {
                do {
                    let read = try await Player.read(port: port, path: path, from: start, count: count)
                    let end = min(size, start + read.body.count)
                    log.check(read.status == 206, "bytes", "\(name) answered bytes=\(start)- with \(read.status)")
                    log.check(
                        read.body == data[start..<end] && read.body.count == min(count, size - start), "bytes",
                        "\(name) bytes=\(start)-: \(read.body.count) bytes, not the origin's "
                            + "\(min(count, size - start))"
                    )
                    checked += read.body.count
                } catch {
                    log.violate("typed-errors", "the player read \(name) bytes=\(start)-: \(error)")
                }
            }
        }
        await origin.settle(paths: ["/video/direct.mp4", "/video/proxied.mp4"])
        // The proxy's hang-ups end its fetches a moment later.
        try? await waitUntil("the proxy's fetches end", timeout: .seconds(30)) {
            origin.inFlight(for: "/video/proxied.mp4") == 0
        }
        let direct = origin.resourceBytesSent("/video/direct.mp4")
        let proxied = origin.resourceBytesSent("/video/proxied.mp4")
        let bound = direct + direct / 4 + (1 << 20)
        log.check(
            proxied <= bound, KnownDefect.coldSeek.rawValue,
            "the proxy made the origin send \(proxied) bytes for \(plan.count) player reads of a \(size)-byte video "
                + "that cost \(direct) bytes read directly; at most \(bound) allowed (1.25 × direct + 1 MiB); "
                + "proxy requests: \(ranges(origin, "/video/proxied.mp4"))")
        await manager.shutdown()
        log.note(
            "proxy: \(plan.count) player reads (bytes=X- then hang up) of a \(size >> 20) MiB video, \(checked) bytes "
                + "checked; origin bytes direct \(direct), through the proxy \(proxied) (≤ \(bound))")
    }

    /// The `Range` headers and bytes of the requests for `path`, for a violation's message.
    static func ranges(_ origin: SampleOrigin, _ path: String) -> String {
        origin.requests(for: path).map { "\($0.headers["range"] ?? "whole"):\($0.bodyBytesSent)" }
            .joined(separator: " ")
    }

    /// ffprobe and `ffmpeg -ss T` on a real MP4 straight from the origin and through the proxy: the same duration
    /// and the same decoded frame; the proxy's origin bytes at most 1.25 × the direct read's + 1 MiB.
    static func ffmpegReads(_ context: inout ScenarioContext) async throws {
        let log = context.log
        guard let ffmpeg = ChildProcess.executable("ffmpeg"), let ffprobe = ChildProcess.executable("ffprobe") else {
            return log.skip("ffmpeg/ffprobe not installed: the real-player reads did not run")
        }
        let movie = try await SharedMovie.make(ffmpeg: ffmpeg)
        let origin = context.origin
        origin.register("/video/movie-direct.mp4", data: movie, contentType: "video/mp4")
        origin.register("/video/movie.mp4", data: movie, contentType: "video/mp4")
        let manager = try context.makeManager("video-ffmpeg")
        let proxy = VideoProxy(video: VideoUtil(manager: manager))
        try proxy.start()
        defer { proxy.stop() }
        let seek = context.int(2...(SharedMovie.duration - 2))
        let direct = origin.url(for: "/video/movie-direct.mp4")
        let proxied = proxy.proxyURL(for: origin.url(for: "/video/movie.mp4"))
        func frame(_ url: URL) async throws -> String {
            let outcome = try await ChildProcess.run(
                ffmpeg,
                ["-v", "error", "-ss", "\(seek)", "-i", url.absoluteString, "-frames:v", "1", "-f", "framemd5", "-"],
                timeout: .seconds(90))
            guard outcome.status == 0 else { throw Player.Failure(description: "ffmpeg: \(outcome.output)") }
            return outcome.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        }
        let directFrame = try await frame(direct)
        let directBytes = origin.resourceBytesSent("/video/movie-direct.mp4")
        let proxiedFrame = try await frame(proxied)
        try? await waitUntil("the proxy's fetches end", timeout: .seconds(30)) {
            origin.inFlight(for: "/video/movie.mp4") == 0
        }
        let proxiedBytes = origin.resourceBytesSent("/video/movie.mp4")
        log.check(
            !directFrame.isEmpty && directFrame == proxiedFrame, "bytes",
            "ffmpeg -ss \(seek) decodes a different frame through the proxy")
        let bound = directBytes + directBytes / 4 + (1 << 20)
        log.check(
            proxiedBytes <= bound, KnownDefect.coldSeek.rawValue,
            "ffmpeg -ss \(seek) -frames:v 1 through the proxy made the origin send \(proxiedBytes) bytes of a "
                + "\(movie.count)-byte MP4, \(directBytes) directly; at most \(bound) allowed; proxy requests: "
                + ranges(origin, "/video/movie.mp4"))
        let probe = ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1"]
        let directProbe = try await ChildProcess.run(ffprobe, probe + [direct.absoluteString], timeout: .seconds(60))
        let proxiedProbe = try await ChildProcess.run(ffprobe, probe + [proxied.absoluteString], timeout: .seconds(60))
        log.check(
            directProbe.status == 0 && directProbe.output == proxiedProbe.output, "bytes",
            "ffprobe reads the proxy as \(proxiedProbe.output), the origin as \(directProbe.output)")
        await manager.shutdown()
        try await nginxReads(&context, ffmpeg: ffmpeg, movie: movie, seek: seek)
        log.note(
            "ffmpeg -ss \(seek) -frames:v 1 on a \(movie.count >> 10) KiB MP4: same frame, origin bytes direct "
                + "\(directBytes), through the proxy \(proxiedBytes) (≤ \(bound)); ffprobe duration "
                + directProbe.output.trimmingCharacters(in: .whitespacesAndNewlines) + " s both ways")
    }
}

extension VideoScenario {
    /// A feed of real MP4s swiped through as a user does (mostly on, sometimes back, sometimes far) with a
    /// `VideoPreloader` on: every byte the player reads is the origin's, no chunk of any item is sent twice,
    /// and the preloaded-but-unplayed bytes never pass the budget at any update.
    static func feedReads(_ context: inout ScenarioContext) async throws {
        let log = context.log
        guard let ffmpeg = ChildProcess.executable("ffmpeg") else {
            return log.skip("ffmpeg not installed: the feed did not run")
        }
        let movie = try await SharedMovie.make(ffmpeg: ffmpeg)
        let origin = context.origin
        let count = context.int(4...8)
        let paths = (0..<count).map { "/feed/\($0).mp4" }
        for path in paths { origin.register(path, data: movie, contentType: "video/mp4") }
        let manager = try context.makeManager("video-feed")
        let chunk = [64 << 10, 256 << 10][context.int(0...1)]
        let video = VideoUtil(manager: manager, configuration: .init(chunkSize: chunk))
        let budget = context.int(4...16) * chunk
        let configuration = VideoPreloader.Configuration(
            itemsAhead: context.int(1...3), itemsBehind: context.int(0...1),
            amount: .seconds(Double(context.int(1...4))),
            byteBudget: budget, concurrency: context.int(1...2),
            posterPosition: context.int(0...1) == 0 ? nil : .time(.seconds(1)))
        let preloader = VideoPreloader(video: video, configuration: configuration)
        let peak = Mutex(0)
        let cancelled = Mutex<[Int: Int]>([:])
        let stream = preloader.updates()
        let watcher = Task {
            for await update in stream {
                let held = preloader.heldBytes
                peak.withLock { $0 = max($0, held) }
                if update.state == .cancelled { cancelled.withLock { $0[update.index, default: 0] += 1 } }
            }
        }
        let items = paths.map { AssetRequest(url: origin.url(for: $0)) }
        preloader.setItems(items)
        var index = 0
        var swipes: [Int] = []
        for _ in 0..<context.int(6...10) {
            let step = [1, 1, 1, 1, -1, 2, 3][context.int(0...6)]
            index = max(0, min(count - 1, index + step))
            swipes.append(index)
            preloader.setCurrentIndex(index)
            // The player reads a seeded head of the item (a user who watches a bit and swipes on).
            let want = context.int((64 << 10)...min(movie.count, 1 << 20))
            var got = Data()
            for try await piece in video.stream(for: items[index], range: 0..<want) { got.append(piece) }
            log.check(got == movie.prefix(want), "bytes", "feed item \(index): the player read other bytes")
        }
        preloader.stop()
        watcher.cancel()
        await video.waitForPendingStores()
        try? await waitUntil("the feed's fetches end", timeout: .seconds(30)) {
            paths.allSatisfy { origin.inFlight(for: $0) == 0 }
        }
        for path in paths {
            // A request cancelled before its answer carried a byte (a probe whose asker left) fetched nothing.
            let starts = origin.requests(for: path).filter { $0.bodyBytesSent > 0 }.compactMap { $0.headers["range"] }
                .compactMap { Int($0.dropFirst(6).prefix { $0 != "-" }) }
            log.check(
                Set(starts).count == starts.count, "fetched-once",
                "feed \(path): a chunk was fetched twice (preloads cancelled: \(cancelled.withLock { $0 })): "
                    + ranges(origin, path))
        }
        let held = peak.withLock { $0 }
        log.check(held <= budget, "budget", "the preloader held \(held) bytes over its budget of \(budget)")
        await manager.shutdown()
        log.note(
            "feed of \(count) MP4s, \(chunk >> 10) KiB chunks, swipes \(swipes), budget \(budget >> 10) KiB "
                + "(peak held \(held >> 10) KiB), origin \(paths.map(origin.resourceBytesSent).reduce(0, +) >> 10) KiB")
    }

    /// `ffmpeg -ss T` with nginx as the origin (where it is installed): straight from nginx and through the proxy,
    /// the same frame, and the proxy's bytes from nginx (its access log) at most 1.25 × the direct read's + 1 MiB.
    static func nginxReads(_ context: inout ScenarioContext, ffmpeg: URL, movie: Data, seek: Int) async throws {
        let log = context.log
        guard let nginx = try await NginxOrigin.start(in: context.directory.appending("nginx")) else {
            return log.skip("nginx not installed: the reads from a real web server did not run")
        }
        do {
            try nginx.serve("direct.mp4", movie)
            try nginx.serve("proxied.mp4", movie)
            let manager = try context.makeManager("video-nginx")
            let proxy = VideoProxy(video: VideoUtil(manager: manager))
            try proxy.start()
            defer { proxy.stop() }
            let arguments = { (url: URL) in
                ["-v", "error", "-ss", "\(seek)", "-i", url.absoluteString, "-frames:v", "1", "-f", "framemd5", "-"]
            }
            let direct = try await ChildProcess.run(ffmpeg, arguments(nginx.url("direct.mp4")), timeout: .seconds(90))
            let proxied = try await ChildProcess.run(
                ffmpeg, arguments(proxy.proxyURL(for: nginx.url("proxied.mp4"))), timeout: .seconds(90))
            // nginx logs a request when it ends: once the proxy and its manager stopped, every request nginx read
            // ends (one a cancel cut off as it was sent is counted by the manager and never read by nginx).
            let sent = manager.fetchStatistics.originRequests
            proxy.stop()
            await manager.shutdown()
            try? await waitUntil("nginx logs the proxy's \(sent) requests", timeout: .seconds(5)) {
                nginx.requestCount("proxied.mp4") >= sent
            }
            let frames = [direct, proxied].map { outcome in
                outcome.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
            }
            log.check(
                direct.status == 0 && proxied.status == 0 && frames[0] == frames[1], "bytes",
                "ffmpeg -ss \(seek) from nginx: \(direct.status) directly, \(proxied.status) through the proxy, "
                    + "frames \(frames[0] == frames[1] ? "equal" : "differ")")
            let (directBytes, proxiedBytes) = (nginx.bytesSent("direct.mp4"), nginx.bytesSent("proxied.mp4"))
            let bound = directBytes + directBytes / 4 + (1 << 20)
            log.check(
                proxiedBytes <= bound, KnownDefect.coldSeek.rawValue,
                "ffmpeg -ss \(seek) through the proxy made nginx send \(proxiedBytes) bytes, \(directBytes) directly; "
                    + "at most \(bound) allowed")
            log.note(
                "nginx: ffmpeg -ss \(seek) sent \(directBytes) B directly, \(proxiedBytes) B through the proxy "
                    + "(\(nginx.requestCount("proxied.mp4")) requests logged, \(sent) counted by the manager)")
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }
}

/// One MP4 made by ffmpeg for the whole run: 40 s of noisy frames at 4 Mbit/s (about 20 MB, several of the
/// util's windows), its index at the end as ffmpeg writes it by default.
enum SharedMovie {
    static let duration = 40
    private static let made = Mutex<Data?>(nil)

    static func make(ffmpeg: URL) async throws -> Data {
        if let data = made.withLock({ $0 }) { return data }
        let directory = try TemporaryDirectory("seeded-user-movie")
        defer { directory.remove() }
        let file = directory.appending("movie.mp4")
        let outcome = try await ChildProcess.run(
            ffmpeg,
            [
                "-v", "error", "-f", "lavfi", "-i",
                "testsrc=duration=\(duration):size=640x360:rate=25,noise=alls=30:allf=t",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=\(duration)", "-c:v", "mpeg4", "-b:v", "4M",
                "-g", "50", "-c:a", "aac", file.path,
            ], timeout: .seconds(120))
        guard outcome.status == 0 else {
            throw Player.Failure(description: "ffmpeg could not make a movie: \(outcome.output)")
        }
        let data = try Data(contentsOf: file)
        made.withLock { $0 = data }
        return data
    }
}
