import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import SampleOrigin
import TestSupport

/// Processes that die: an offline download paused and resumed in this process, one killed with SIGKILL in a child
/// and finished by a new child on the same directory, and image asks killed mid-way and asked again by a new
/// child on the same cache. What is on disk afterwards is byte-exact, what had arrived is not fetched again
/// (beyond 64 KiB), and each child's peak resident memory stays within what its configuration allows.
enum RestartScenario {
    /// The bandwidth of the origin's link: slow enough that a kill or a pause lands mid-download.
    static let bandwidth = 800_000
    /// What a kill or a pause may cost: what the fixed downloads may fetch again (64 KiB), plus two of the
    /// origin's paced pieces that can be on the wire when the download stops.
    static let lossAllowance = (64 << 10) + 2 * (16 << 10)
    /// A child's resident growth above its size at start that its configuration explains: its memory partitions
    /// and staged writes (`Limits.childConfiguration`), one download's answer in memory (`rangeSize`, 16 MiB), and
    /// 32 MiB for what every process of the package holds once it works (threads' stacks, URLSession and libcurl,
    /// codec tables; a download child's whole growth is about 12 MiB). 92 MiB in all.
    static let childMemoryBound =
        Limits.childImagePartition + Limits.childVideoPartition + Limits.childStagedWriteLimit + (16 << 20)
        + (32 << 20)

    static func run(_ context: inout ScenarioContext) async throws {
        context.origin.setBandwidthLimit(bytesPerSecond: bandwidth)
        try await pausedDownload(&context)
        try await killedDownload(&context)
        context.origin.setBandwidthLimit(bytesPerSecond: nil)
        try await killedImages(&context)
    }

    /// A download paused once or twice mid-way and resumed, in this process.
    static func pausedDownload(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let size = context.int((400 << 10)...(1_200 << 10))
        let data = testBytes(count: size, seed: context.seed &+ 303)
        let path = "/downloads/paused.mp4"
        origin.register(path, data: data, contentType: "video/mp4")
        let manager = try context.makeManager("paused-cache")
        let downloads = try VideoDownloads(
            manager: manager, configuration: .init(directory: context.directory.appending("paused-downloads")))
        let download = try downloads.enqueue(AssetRequest(url: origin.url(for: path)))
        // Drawn before any timing can cut the loop short, so the seed's later draws do not depend on it.
        let delays = (0..<context.int(1...2)).map { _ in context.int(100...900) }
        var pausedAt: [Int] = []
        for delay in delays {
            try? await origin.waitForInFlight(path: path, count: 1, timeout: .seconds(30))
            try await Task.sleep(for: .milliseconds(delay))
            await downloads.pause(download.id)
            let state = downloads.download(id: download.id)
            if state?.state == .completed { break }
            log.check(state?.state == .paused, "downloads", "a paused download is \(String(describing: state?.state))")
            pausedAt.append(state?.progress.bytesDownloaded ?? -1)
            await origin.settle(paths: [path])
            try downloads.resume(download.id)
        }
        let finished = try await downloads.waitUntilFinished(download.id)
        let file = try Data(contentsOf: finished.localURL)
        log.check(file == data, "bytes", "a download paused \(pausedAt.count)× differs from the origin's bytes")
        await origin.settle(paths: [path])
        let sent = origin.resourceBytesSent(path)
        let bound = size + lossAllowance * pausedAt.count
        log.check(
            sent <= bound, KnownDefect.downloadResume.rawValue,
            "a \(size)-byte download paused at \(pausedAt) bytes on disk made the origin send \(sent) bytes; at "
                + "most \(bound) allowed; requests: \(VideoScenario.ranges(origin, path))")
        await downloads.close()
        await manager.shutdown()
        log.note(
            "download of \(size) B paused at \(pausedAt) B on disk, resumed: byte-exact, origin sent \(sent) "
                + "≤ \(bound)"
        )
    }

    /// A download killed with SIGKILL in a child, then finished by a new child on the same directory.
    static func killedDownload(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let size = context.int((600 << 10)...(1_600 << 10))
        let data = testBytes(count: size, seed: context.seed &+ 404)
        let path = "/downloads/killed.mp4"
        origin.register(path, data: data, contentType: "video/mp4")
        let directory = context.directory.appending("killed")
        let arguments = ["child", "download", directory.path, origin.url(for: path).absoluteString]
        let target = context.int((size / 5)...(size * 3 / 4))
        // The first child: killed once the download reports `target` bytes on disk, or once the origin has had
        // time to send them.
        let (first, firstLines) = try spawn(context.executable, arguments)
        try? await origin.waitForInFlight(path: path, count: 1, timeout: .seconds(60))
        let started = ContinuousClock.now
        let paced = Duration.milliseconds(target * 1_000 / bandwidth + 200)
        try? await waitUntil("the download reaches \(target) bytes", timeout: .seconds(60)) {
            let onDisk = firstLines.last("progress ").flatMap { Int($0) } ?? 0
            return onDisk >= target || ContinuousClock.now - started >= paced || firstLines.hasEnded
        }
        let reported = firstLines.last("progress ").flatMap { Int($0) } ?? 0
        // Only a child still running: a reaped one's process ID may belong to another process by now.
        if !first.exit.hasExited { kill(first.processIdentifier, SIGKILL) }
        _ = await exitStatus(of: first, timeout: .seconds(30))
        await origin.settle(paths: [path])
        let sentBeforeKill = origin.resourceBytesSent(path)
        let finishedFirst = firstLines.last("done ") != nil
        // The second child on the same directory goes on from what is on disk.
        let (second, secondLines) = try spawn(context.executable, arguments)
        let status = await exitStatus(of: second, timeout: .seconds(120))
        guard status == 0, let local = secondLines.last("done ") else {
            return log.violate(
                "downloads",
                "the restarted download child ended \(String(describing: status)): \(secondLines.all.suffix(3))")
        }
        let file = (try? Data(contentsOf: URL(fileURLWithPath: local))) ?? Data()
        log.check(
            file == data, "bytes", "a download killed at \(reported) B and resumed differs from the origin's bytes")
        await origin.settle(paths: [path])
        let sent = origin.resourceBytesSent(path)
        let bound = size + (finishedFirst ? 0 : lossAllowance)
        let resumedRange = origin.requests(for: path).dropFirst().first?.headers["range"] ?? "none"
        log.check(
            sent <= bound, KnownDefect.downloadResume.rawValue,
            "a \(size)-byte download killed after the origin sent \(sentBeforeKill) bytes (\(reported) reported on "
                + "disk) made the origin send \(sent) bytes in all; at most \(bound) allowed; the restart asked "
                + "\(resumedRange)")
        for lines in [firstLines, secondLines] { checkMemory(lines, what: "download child", log: log) }
        log.note(
            "download of \(size) B killed (SIGKILL) after \(sentBeforeKill) B sent, \(reported) B reported on disk; "
                + "the restart asked \(resumedRange): byte-exact, origin sent \(sent) ≤ \(bound)")
    }

    /// Image asks in a child killed at a random moment, then asked again by a new child on the same cache.
    static func killedImages(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let ledger = ImageLedger(origin: origin, log: log)
        let count = context.int(6...16)
        var urls: [String] = []
        var paths: [String] = []
        for index in 0..<count {
            let picture = Pictures.picture(
                width: context.int(200...480), height: context.int(150...360), seed: context.seed &* 31 &+ UInt64(index)
            )
            let data = try ImageEncoder.jpeg(picture, quality: 85)
            let path = "/restart/\(index).jpg"
            origin.register(path, data: data, contentType: "image/jpeg")
            if context.chance(0.3) {
                origin.setBehavior(path, .init(throttle: .init(pieceSize: 4 << 10, delay: .milliseconds(10))))
            }
            ledger.register(path, data: data)
            paths.append(path)
            urls.append(origin.url(for: path).absoluteString)
        }
        let style = context.pick(ListScenario.styles)
        let directory = context.directory.appending("images")
        let arguments = ["child", "images", directory.path, ChildCommands.argument(style)] + urls
        let killAfter = context.int(0...count)
        let (first, firstLines) = try spawn(context.executable, arguments)
        if killAfter < count {
            try? await waitUntil("\(killAfter) images", timeout: .seconds(60)) {
                firstLines.all.filter { $0.hasPrefix("done ") }.count >= killAfter || firstLines.hasEnded
            }
        } else {
            _ = await firstLines.wait(for: "flushed")
        }
        // Only a child still running: a reaped one's process ID may belong to another process by now.
        if !first.exit.hasExited { kill(first.processIdentifier, SIGKILL) }
        _ = await exitStatus(of: first, timeout: .seconds(30))
        let flushed = firstLines.last("flushed") != nil
        await origin.settle(paths: paths)
        let before = origin.totalRequestCount
        let out = directory.appendingPathComponent("out")
        try? FileManager.default.removeItem(at: out)
        let (second, secondLines) = try spawn(context.executable, arguments)
        let status = await exitStatus(of: second, timeout: .seconds(120))
        guard status == 0 else {
            return log.violate(
                "restart", "the second image child ended \(String(describing: status)): \(secondLines.all.suffix(3))")
        }
        let configuration = ImageUtil.Configuration()
        for (index, path) in paths.enumerated() {
            guard let data = try? Data(contentsOf: out.appendingPathComponent("\(index).png")),
                let image = try? ImageDecoder.decode(data)
            else {
                log.violate("restart", "the restarted child wrote no picture for \(path)")
                continue
            }
            ledger.checkPicture(
                image, source: nil, path: path, style: style, configuration: configuration, what: "restart")
        }
        let secondRequests = origin.totalRequestCount - before
        if flushed {
            log.check(
                secondRequests == 0, "restart",
                "every write had reached the disk before the kill, yet the restarted child made \(secondRequests) "
                    + "origin requests")
        }
        for path in paths {
            let requests = origin.getCount(path)
            log.check(requests <= 2, "origin-requests", "\(path): \(requests) origin requests over two processes")
        }
        for lines in [firstLines, secondLines] { checkMemory(lines, what: "image child", log: log) }
        let done = firstLines.all.filter { $0.hasPrefix("done ") }.count
        log.note(
            "\(count) images in \(style.identifier): the first child killed after \(done) answers"
                + (flushed ? " and its writes" : "") + ", the second made \(secondRequests) origin requests; "
                + "\(ledger.checkedPictures) pictures checked")
    }

    static func spawn(_ executable: URL, _ arguments: [String]) throws -> (SpawnedProcess, ChildLines) {
        let (process, output) = try SpawnedProcess.readingOutput(executable, arguments, includingErrors: true)
        return (process, ChildLines(output))
    }

    /// A child's peak resident growth against `childMemoryBound` (a killed child reports none).
    static func checkMemory(_ lines: ChildLines, what: String, log: ScenarioLog) {
        guard let report = lines.last("memory base ") else { return }
        let numbers = report.split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 2 else { return }
        let growth = numbers[1] - numbers[0]
        log.check(
            growth <= childMemoryBound, "memory",
            "the \(what)'s resident peak grew \(growth >> 20) MiB above its start, at most \(childMemoryBound >> 20) "
                + "MiB allowed")
        log.note("\(what) peak +\(growth >> 20) MiB")
    }
}
