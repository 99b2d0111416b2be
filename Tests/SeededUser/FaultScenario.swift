import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import SampleOrigin
import TestSupport

/// Origins that misbehave: 503 with `Retry-After`, connections dropped mid-body, a `Content-Length` that lies,
/// slow heads and bodies, a body that stalls until the asker gives up, a resource that changes (a new ETag), and
/// a server that ignores `Range`. Every ask ends in the right picture or bytes, or in the typed error of the fault
/// injected; once the fault is gone, the next ask is right (nothing wrong was stored).
enum FaultScenario {
    enum Fault: CaseIterable {
        case retryAfter, dropped, lyingLength, slowHead, slowBody, stalled, changed

        var name: String {
            switch self {
            case .retryAfter: "503+Retry-After"
            case .dropped: "dropped"
            case .lyingLength: "lying-length"
            case .slowHead: "slow-head"
            case .slowBody: "slow-body"
            case .stalled: "stalled"
            case .changed: "changed"
            }
        }
    }

    static func run(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let manager = try context.makeManager("faults")
        let util = ImageUtil(manager: manager)
        let ledger = ImageLedger(origin: origin, log: log)
        let style = context.pick(ListScenario.styles)
        let count = context.int(6...10)
        var failedAsks = 0
        var seen: [String] = []
        var paths: [String] = []
        for index in 0..<count {
            let fault = context.pick(Fault.allCases)
            seen.append(fault.name)
            let path = "/faults/\(index).jpg"
            paths.append(path)
            let picture = Pictures.picture(
                width: context.int(160...400), height: context.int(120...300),
                seed: context.seed &* 7_919 &+ UInt64(index))
            let data = try ImageEncoder.jpeg(picture, quality: 85)
            origin.register(path, data: data, contentType: "image/jpeg")
            ledger.register(path, data: data)
            let url = origin.url(for: path)
            func ask(_ what: String, policy: AssetRequest.CachePolicy = .useCache) async -> (any Error)? {
                do {
                    let result = try await util.imageResult(
                        for: AssetRequest(url: url, cachePolicy: policy), style: style)
                    ledger.checkPicture(
                        result.value, source: result.source, path: path, style: style, util: util, what: what)
                    return nil
                } catch {
                    return error
                }
            }
            func expectSuccess(_ what: String, policy: AssetRequest.CachePolicy = .useCache) async {
                if let error = await ask(what, policy: policy) {
                    log.violate("typed-errors", "\(path) \(fault.name) \(what): \(errorName(error))")
                }
            }
            switch fault {
            case .retryAfter:
                let failures = context.int(1...3)
                origin.setBehavior(path, .init(failNext: failures, failStatus: 503, retryAfter: 1))
                let error = await ask("after \(failures) 503s")
                if failures < Limits.retryPolicy.maxAttempts {
                    log.check(
                        error == nil, "typed-errors",
                        "\(path): \(failures) 503s then 200 ended in \(String(describing: error))")
                } else {
                    failedAsks += 1
                    log.check(
                        (error as? AssetsError).map { if case .httpStatus(503, _) = $0 { true } else { false } }
                            ?? false,
                        "typed-errors",
                        "\(path): three 503s ended in \(error.map(errorName) ?? "success"), not httpStatus(503)")
                }
                // Each retry waited as Retry-After asked, up to the policy's ceiling.
                let starts = origin.requests(for: path).prefix(min(failures + 1, Limits.retryPolicy.maxAttempts))
                    .map(\.startTime)
                let floor = min(1, Limits.retryPolicy.maxDelay) - 0.02
                for (earlier, later) in zip(starts, starts.dropFirst()) {
                    log.check(
                        later.timeIntervalSince(earlier) >= floor, "retry-after",
                        "\(path): a retry \(later.timeIntervalSince(earlier)) s after a 503 with Retry-After: 1 "
                            + "(the policy waits up to \(Limits.retryPolicy.maxDelay) s)")
                }
                origin.setBehavior(path, .normal)
                await expectSuccess("after the 503s")
            case .dropped, .lyingLength:
                let behavior: SampleOrigin.Behavior =
                    fault == .dropped
                    ? .init(closeAfterBodyBytes: context.int(0...(data.count - 1)))
                    : .init(contentLengthOffset: context.int(1...4_096))
                origin.setBehavior(path, behavior)
                let error = await ask(fault.name)
                failedAsks += 1
                // Every attempt's download was cut short by the fault.
                for _ in 0..<Limits.retryPolicy.maxAttempts { ledger.mayHaveLostDownload(path) }
                let typed: Bool
                switch error as? AssetsError {
                case .networkFailure?, .lengthMismatch?: typed = true
                default: typed = false
                }
                log.check(
                    typed, "typed-errors",
                    "\(path) \(fault.name) ended in \(error.map(errorName) ?? "success"), not a network failure or "
                        + "length mismatch")
                origin.setBehavior(path, .normal)
                await expectSuccess("after \(fault.name)")
            case .slowHead:
                origin.setBehavior(path, .init(latency: .milliseconds(context.int(50...400))))
                await expectSuccess("slow head")
            case .slowBody:
                origin.setBehavior(
                    path, .init(throttle: .init(pieceSize: context.int(512...8_192), delay: .milliseconds(5))))
                await expectSuccess("slow body")
            case .stalled:
                origin.setBehavior(path, .init(stallAfterBodyBytes: context.int(0...(data.count / 2))))
                let task = util.task(for: url, style: style)
                do {
                    try await origin.waitForInFlight(path: path, count: 1, timeout: .seconds(30))
                } catch {
                    log.violate("stall", "\(path): the stalled request never reached the origin")
                }
                task.cancel()
                do {
                    _ = try await task.image
                    log.violate("typed-errors", "\(path): a stalled body answered a picture")
                } catch {
                    log.check(
                        isCancellation(error), "typed-errors", "\(path) stalled then cancelled: \(errorName(error))")
                }
                ledger.mayHaveLostDownload(path)
                origin.setBehavior(path, .normal)
                await expectSuccess("after the stall")
            case .changed:
                await expectSuccess("before the change")
                let newPicture = Pictures.picture(
                    width: picture.width, height: picture.height, seed: context.seed &* 104_729 &+ UInt64(index))
                let newData = try ImageEncoder.jpeg(newPicture, quality: 85)
                origin.replace(path, data: newData)
                // A new version: what the ledger expects, and what the origin may send once more.
                let newPath = path
                ledger.register(newPath, data: newData)
                ledger.mayHaveLostDownload(newPath)
                ledger.mayHaveLostDownload(newPath)
                await expectSuccess("reloaded after the change", policy: .reload)
                await expectSuccess("after the reload")
            }
        }
        // A video read through a server that ignores Range and one that drops the connection mid-range.
        await videoFaults(&context, manager: manager)
        await manager.waitForPendingWrites()
        await origin.settle(paths: paths)
        ledger.checkOriginLog()
        let fetch = manager.fetchStatistics
        let stats = KnownDefect.stats.rawValue
        let imageRequests = paths.reduce(0) { $0 + origin.requests(for: $1).count }
        let videoRequests = origin.requests(for: "/faults/video.mp4").count
        log.check(
            fetch.originRequests == imageRequests + videoRequests, stats,
            "fetchStatistics.originRequests \(fetch.originRequests), the origin's log \(imageRequests + videoRequests)")
        let sent = (paths + ["/faults/video.mp4"]).reduce(0) { $0 + origin.bodyBytesSent($1) }
        log.check(
            fetch.bytesDownloaded <= sent, stats,
            "fetchStatistics.bytesDownloaded \(fetch.bytesDownloaded) > the \(sent) bytes the origin sent")
        await manager.shutdown()
        log.note(
            "\(count) photos behind \(Set(seen).sorted().joined(separator: ", ")); \(failedAsks) asks failed as "
                + "injected; \(ledger.checkedPictures) pictures checked; origin requests \(origin.totalRequestCount)")
    }

    /// A video read through a server ignoring `Range`, then through one dropping the connection mid-range: the
    /// bytes are right or the error is typed, and the next read is right.
    static func videoFaults(_ context: inout ScenarioContext, manager: AssetsManager) async {
        let origin = context.origin
        let log = context.log
        let path = "/faults/video.mp4"
        let size = context.int((1 << 20)...(3 << 20))
        let data = testBytes(count: size, seed: context.seed &+ 17)
        origin.register(path, data: data, contentType: "video/mp4")
        let video = VideoUtil(manager: manager, configuration: .init(chunkSize: 256 << 10, windowSize: 1 << 20))
        let url = origin.url(for: path)
        func read(_ range: Range<Int>, _ what: String, mayFail: Bool) async {
            do {
                let bytes = try await video.data(for: url, range: range)
                log.check(bytes == data[range], "bytes", "video \(what) \(range): bytes differ from the origin's")
            } catch {
                let typed = error is AssetsError || error is VideoError
                log.check(
                    mayFail && typed, "typed-errors", "video \(what) \(range): \(errorName(error))")
            }
        }
        let start = context.int(0...(size / 2))
        let range = start..<min(size, start + context.int((64 << 10)...(1 << 20)))
        origin.setBehavior(path, .init(ignoreRange: true))
        await read(range, "through a server ignoring Range", mayFail: false)
        let later = context.int(0...(size - 1))
        let secondRange = later..<min(size, later + (512 << 10))
        origin.setBehavior(path, .init(closeAfterBodyBytes: context.int(1...(128 << 10))))
        await read(secondRange, "with the connection dropped", mayFail: true)
        origin.setBehavior(path, .normal)
        await read(secondRange, "after the drop", mayFail: false)
        await read(0..<size, "whole", mayFail: false)
    }
}
