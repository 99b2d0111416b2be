import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import TestSupport

/// Lists of photos as apps show them: two lists on two utils of one manager (different variant formats and
/// styles), each with a prefetcher, scrolled, flung, stopped and scrolled back; rows cancelled before, during
/// and after their bytes arrive; priorities raised and lowered; some answers asked as encoded bytes.
enum ListScenario {
    /// One list on screen: its util, style, prefetcher and the rows it shows.
    final class List {
        let util: ImageUtil
        let style: AvatarStyle
        let prefetcher: ImagePrefetcher
        var position = 0
        var visible: [Int: ImageTask] = [:]
        var prefetched: Set<Int> = []
        /// Rows this list ever prefetched: not cold, so no progress would come for them.
        var everPrefetched: Set<Int> = []
        var seen: Set<Int> = []

        init(util: ImageUtil, style: AvatarStyle) {
            self.util = util
            self.style = style
            prefetcher = ImagePrefetcher(util: util, style: style, maxConcurrentRequests: 4)
        }
    }

    /// A row's ask, kept until the end to check how it ended.
    struct Ask {
        var path: String
        var list: List
        var task: ImageTask
        var cancelled: Bool
        /// Awaited and checked when its list stopped: its answer is in the ledger once already.
        var settled = false
    }

    static let styles: [AvatarStyle] = [
        .circle(diameter: 48), .circle(diameter: 96), .rectangle(size: .square(64)), .original,
    ]

    static func run(_ context: inout ScenarioContext) async throws {
        let origin = context.origin
        let log = context.log
        let ledger = ImageLedger(origin: origin, log: log)
        let count = context.int(16...28)
        var paths: [String] = []
        var throttled = 0
        for index in 0..<count {
            let (width, height) = (context.int(160...480), context.int(120...360))
            let picture = Pictures.picture(width: width, height: height, seed: context.seed &* 1_000 &+ UInt64(index))
            let png = context.chance(0.2)
            let data = try png ? ImageEncoder.png(picture) : ImageEncoder.jpeg(picture, quality: context.int(70...92))
            let path = "/list/\(index).\(png ? "png" : "jpg")"
            origin.register(path, data: data, contentType: png ? "image/png" : "image/jpeg")
            if context.chance(0.5) {
                // A slow body: a row can be cancelled while it arrives.
                origin.setBehavior(path, .init(throttle: .init(pieceSize: 8 << 10, delay: .milliseconds(15))))
                throttled += 1
            }
            ledger.register(path, data: data)
            paths.append(path)
        }
        let manager = try context.makeManager("lists")
        let utilA = ImageUtil(manager: manager)
        let utilB = ImageUtil(manager: manager, configuration: .init(variantFormat: .png))
        let lists = [List(util: utilA, style: context.pick(styles)), List(util: utilB, style: context.pick(styles))]
        var asks: [Ask] = []
        var counts = (cancelledBefore: 0, cancelledDuring: 0, cancelledAfter: 0, flings: 0, stops: 0, encoded: 0)
        var progressTimeouts = 0
        let viewport = context.int(4...7)
        let steps = context.int(20...40)

        func show(_ list: List, _ index: Int, priority: AssetRequest.Priority = .normal) -> ImageTask {
            let task = list.util.task(
                for: AssetRequest(url: origin.url(for: paths[index]), priority: priority),
                style: list.style)
            list.visible[index] = task
            list.seen.insert(index)
            asks.append(Ask(path: paths[index], list: list, task: task, cancelled: false))
            return task
        }
        var cancels = 0
        func cancel(_ task: ImageTask, path: String, arrived: Bool) {
            task.cancel()
            cancels += 1
            if let index = asks.lastIndex(where: { $0.task === task }) { asks[index].cancelled = true }
            if arrived { ledger.arrived(path, cancelled: true) } else { ledger.mayHaveLostDownload(path) }
        }
        func hasArrived(_ task: ImageTask, path: String) -> Bool {
            guard let progress = task.progress, let expected = progress.expectedBytes else { return false }
            return progress.receivedBytes >= expected && expected == Int64(ledger.data(path).count)
        }
        func scroll(_ list: List, by delta: Int, leaving: inout ScenarioContext) {
            let old = Set(list.position..<min(count, list.position + viewport))
            list.position = max(0, min(count - viewport, list.position + delta))
            let new = Set(list.position..<min(count, list.position + viewport))
            for index in old.subtracting(new).sorted() {
                guard let task = list.visible.removeValue(forKey: index) else { continue }
                if leaving.chance(0.6) {
                    cancel(task, path: paths[index], arrived: hasArrived(task, path: paths[index]))
                } else {
                    task.priority = .veryLow  // left running, as a row kept for a while
                }
            }
            for index in new.subtracting(old).sorted() { _ = show(list, index) }
            // Prefetch the rows ahead, stop those left far behind.
            let ahead = (list.position + viewport)..<min(count, list.position + 2 * viewport)
            let urls = ahead.map { origin.url(for: paths[$0]) }
            list.prefetcher.startPrefetching(with: urls)
            list.prefetched.formUnion(ahead)
            list.everPrefetched.formUnion(ahead)
            let behind = list.prefetched.filter { $0 < list.position - 2 || $0 >= list.position + 3 * viewport }
                .sorted()
            if !behind.isEmpty {
                list.prefetcher.stopPrefetching(with: behind.map { origin.url(for: paths[$0]) })
                for index in behind { ledger.mayHaveLostDownload(paths[index]) }
                cancels += behind.count
                list.prefetched.subtract(Set(behind))
            }
        }

        for list in lists { scroll(list, by: 0, leaving: &context) }
        for _ in 0..<steps {
            let list = context.pick(lists)
            switch context.int(0...99) {
            case 0..<40:
                scroll(list, by: context.chance(0.8) ? context.int(1...3) : -context.int(1...3), leaving: &context)
            case 40..<52:
                // A fling: every row shown is cancelled before its bytes can arrive, and so are some of the next.
                counts.flings += 1
                for (index, task) in list.visible.sorted(by: { $0.key < $1.key }) {
                    cancel(task, path: paths[index], arrived: hasArrived(task, path: paths[index]))
                }
                list.visible = [:]
                let old = list.position
                list.position = max(0, min(count - viewport, list.position + context.int(8...15)))
                for index in list.position..<min(count, list.position + viewport) {
                    let task = show(list, index)
                    if index != old, context.chance(0.3) {
                        cancel(task, path: paths[index], arrived: false)
                        list.visible[index] = nil
                        counts.cancelledBefore += 1
                    }
                }
            case 52..<66:
                // The list stops: every row shown ends, and is checked.
                counts.stops += 1
                // A row still shown from an earlier stop was checked then: its answer is counted once.
                for (index, task) in list.visible.sorted(by: { $0.key < $1.key }) {
                    guard let ask = asks.lastIndex(where: { $0.task === task }), !asks[ask].settled else { continue }
                    await settle(task, path: paths[index], list: list, ledger: ledger, log: log)
                    asks[ask].settled = true
                }
            case 66..<80:
                // A row that arrives and leaves at a chosen moment of its download.
                let cold = (0..<count).filter { index in
                    !lists.contains { $0.seen.contains(index) || $0.everPrefetched.contains(index) }
                }
                guard let index = cold.isEmpty ? nil : context.pick(cold) else { continue }
                let task = show(list, index)
                list.visible[index] = nil
                let path = paths[index]
                switch context.int(0...2) {
                case 0:
                    cancel(task, path: path, arrived: false)
                    counts.cancelledBefore += 1
                case 1:
                    let started = await waitForProgress(task, timeout: .seconds(3)) { progress in
                        progress.receivedBytes > 0
                    }
                    progressTimeouts += started ? 0 : 1
                    cancel(task, path: path, arrived: hasArrived(task, path: path))
                    counts.cancelledDuring += 1
                default:
                    let arrived = await waitForProgress(task, timeout: .seconds(5)) { progress in
                        progress.expectedBytes.map { progress.receivedBytes >= $0 } ?? false
                    }
                    cancel(task, path: path, arrived: arrived && hasArrived(task, path: path))
                    counts.cancelledAfter += arrived ? 1 : 0
                    progressTimeouts += arrived ? 0 : 1
                }
            case 80..<90:
                guard let index = list.visible.keys.sorted().first, let task = list.visible[index] else { continue }
                task.priority = context.pick([.veryLow, .low, .high, .veryHigh])
            default:
                // A service's ask: the encoded bytes of a row's picture.
                counts.encoded += 1
                let index = context.int(0...(count - 1))
                await encoded(
                    list: list, path: paths[index], origin: origin, ledger: ledger, log: log, context: &context)
            }
        }
        // Every row ends: a row not cancelled must succeed, a cancelled one ends cancelled or with its picture.
        for ask in asks where !ask.settled {
            do {
                let result = try await ask.task.result
                ledger.checkPicture(
                    result.value, source: result.source, path: ask.path, style: ask.list.style, util: ask.list.util,
                    what: "row")
            } catch {
                log.check(
                    ask.cancelled && isCancellation(error), "typed-errors",
                    "\(ask.path) \(ask.list.style.identifier) \(ask.cancelled ? "cancelled" : "not cancelled") ended "
                        + "with \(errorName(error))")
            }
        }
        for list in lists { list.prefetcher.stopPrefetching() }
        // Scrolling back over everything seen: every row is answered, from the cache where its bytes had arrived.
        let before = origin.totalRequestCount
        for list in lists {
            // The whole list comes back at once, as a jump to its top shows it.
            let rows = list.seen.sorted().map { index in
                (
                    index,
                    list.util.task(
                        for: origin.url(for: paths[index]),
                        style: list.style)
                )
            }
            for (index, task) in rows {
                do {
                    let result = try await task.result
                    ledger.checkPicture(
                        result.value, source: result.source, path: paths[index], style: list.style, util: list.util,
                        what: "scroll-back")
                } catch {
                    log.violate("typed-errors", "scrolling back to \(paths[index]) failed: \(errorName(error))")
                }
            }
        }
        let scrollBackRequests = origin.totalRequestCount - before
        await manager.waitForPendingWrites()
        await origin.settle(paths: paths)
        ledger.checkOriginLog()
        checkStatistics(
            manager: manager, utils: [utilA, utilB], origin: origin, paths: paths, ledger: ledger, cancels: cancels,
            log: log)
        await manager.shutdown()
        log.note(
            "\(count) photos (\(throttled) slow), \(asks.count) rows over \(steps) steps: "
                + "\(counts.flings) flings, \(counts.stops) stops, cancelled before/during/after arrival "
                + "\(counts.cancelledBefore)/\(counts.cancelledDuring)/\(counts.cancelledAfter), "
                + "\(counts.encoded) encoded asks, \(progressTimeouts) progress waits timed out; "
                + "\(ledger.checkedPictures) pictures checked; origin requests "
                + "\(origin.totalRequestCount) (\(scrollBackRequests) on scrolling back)")
    }

    /// Awaits a shown row and checks its picture.
    static func settle(_ task: ImageTask, path: String, list: List, ledger: ImageLedger, log: ScenarioLog) async {
        do {
            let result = try await task.result
            ledger.checkPicture(
                result.value, source: result.source, path: path, style: list.style, util: list.util, what: "row")
        } catch {
            log.violate("typed-errors", "\(path) \(list.style.identifier) (not cancelled) failed: \(errorName(error))")
        }
    }

    /// Asks `path` as encoded bytes in a format that keeps the style's transparency, and checks them.
    static func encoded(
        list: List, path: String, origin: SampleOrigin, ledger: ImageLedger, log: ScenarioLog,
        context: inout ScenarioContext
    ) async {
        let transparent = list.style.identifier.hasPrefix("circle")
        let format: ImageEncoder = transparent || context.chance(0.5) ? .png : .jpeg(quality: 90)
        do {
            let encoded = try await list.util.encodedImage(
                for: origin.url(for: path), style: list.style, format: format)
            let image = try ImageDecoder.decode(encoded.data)
            ledger.checkPicture(
                image, source: encoded.source, path: path, style: list.style, util: list.util, what: "encoded")
            log.check(
                encoded.isNotModified(ifNoneMatch: encoded.entityTag.description), "encoded",
                "\(path): the answer's own ETag does not match it")
        } catch {
            log.violate("typed-errors", "encoded \(path) \(list.style.identifier) failed: \(errorName(error))")
        }
    }

    /// Polls a task's progress (bounded) until `condition` holds; returns whether it did.
    static func waitForProgress(
        _ task: ImageTask, timeout: Duration, _ condition: @escaping @Sendable (FetchProgress) -> Bool
    ) async -> Bool {
        (try? await waitUntil("progress", timeout: timeout) { task.progress.map(condition) ?? false }) != nil
    }

    /// The package's counters against the origin's log.
    static func checkStatistics(
        manager: AssetsManager, utils: [ImageUtil], origin: SampleOrigin, paths: [String], ledger: ImageLedger,
        cancels: Int, log: ScenarioLog
    ) {
        let fetch = manager.fetchStatistics
        let stats = KnownDefect.stats.rawValue
        let requests = origin.totalRequestCount
        // A request a cancel cut off as it was sent can be counted by the package and never read by the origin:
        // each cancel (a row's, or a prefetch stopped) explains at most one.
        log.check(
            (requests...(requests + cancels)).contains(fetch.originRequests), stats,
            "fetchStatistics.originRequests \(fetch.originRequests), the origin's log \(requests) (\(cancels) cancels)")
        let sent = paths.reduce(0) { $0 + origin.bodyBytesSent($1) }
        log.check(
            fetch.bytesDownloaded <= sent, stats,
            "fetchStatistics.bytesDownloaded \(fetch.bytesDownloaded) > the \(sent) bytes the origin sent")
        log.check(
            fetch.failures == 0, stats,
            "fetchStatistics.failures \(fetch.failures) with no fetch failing (only cancellations)")
        // Asks that shared a piece of work count once, and the others as joins.
        let hits = utils.reduce(0) { $0 + $1.statistics.memoryHits + $1.statistics.storageHits + $1.statistics.joins }
        log.check(
            hits >= ledger.cacheAnswers, KnownDefect.cacheAnswerCounts.rawValue,
            "the utils count \(hits) memory and storage hits and joins for \(ledger.cacheAnswers) answers from memory "
                + "or storage")
    }
}
