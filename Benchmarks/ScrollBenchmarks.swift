import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import Synchronization

/// The list-scroll row (issue 21): 300 rows of distinct photos over a loopback origin whose bandwidth all
/// connections share, 8 rows visible, prefetching 24 rows ahead; a steady scroll at 10 rows a second, then a
/// fling of 120 rows in one second that stops. Reported: visible → image (p50, p95) in the steady phase and for
/// the 8 rows where the fling stops, for three configurations in one run, and the origin's requests against the
/// distinct images it served. Driven in real time: it is a benchmark, not a test.
func runScrollBenchmarks(table: BenchmarkTable) async throws {
    let scroll = ScrollSetup()
    let origin = SampleOrigin()
    for row in 0..<scroll.rowCount {
        let jpeg = try makePhotoLikeJPEG(width: 320, height: 240, seed: UInt64(row + 1))
        origin.register(ScrollSetup.path(row), data: jpeg, contentType: "image/jpeg", cacheControl: "max-age=3600")
    }
    try origin.start()
    defer { origin.stop() }
    origin.setBandwidthLimit(bytesPerSecond: scroll.bandwidth)

    let idle = try await scroll.idleBaseline(origin: origin)
    let live = try await scroll.run(.prefetchWithLivePriorities, origin: origin)
    let none = try await scroll.run(.noPrefetch, origin: origin)
    let fixed = try await scroll.run(.prefetchWithoutPriorityChanges, origin: origin)

    let steadyBaseline = "no prefetch"
    for (name, outcome) in [("prefetch+live priorities", live), ("prefetch, fixed priorities", fixed)] {
        table.add(
            "scroll steady p50 (\(name))", unit: "ms", median: outcome.steady.p50 * 1e3,
            baseline: steadyBaseline + " p50", baselineMedian: none.steady.p50 * 1e3)
        table.add(
            "scroll steady p95 (\(name))", unit: "ms", median: outcome.steady.p95 * 1e3,
            baseline: steadyBaseline + " p95", baselineMedian: none.steady.p95 * 1e3,
            target: name.hasPrefix("prefetch+live") ? 0.1 : nil)
    }
    for (name, outcome) in [
        ("prefetch+live priorities", live), ("no prefetch", none), ("prefetch, fixed priorities", fixed),
    ] {
        table.add(
            "scroll fling-stop p50 (\(name))", unit: "ms", median: outcome.flingStop.p50 * 1e3,
            baseline: "8 images, idle origin p50", baselineMedian: idle.p50 * 1e3)
        table.add(
            "scroll fling-stop p95 (\(name))", unit: "ms", median: outcome.flingStop.p95 * 1e3,
            baseline: "8 images, idle origin p95", baselineMedian: idle.p95 * 1e3,
            target: name.hasPrefix("prefetch+live") ? 1.5 : nil)
        table.add(
            "scroll origin requests (\(name))", unit: "req", median: Double(outcome.originRequests),
            baseline: "distinct images served", baselineMedian: Double(outcome.distinctImages),
            target: name == "prefetch, fixed priorities" ? nil : 1.0)
    }
}

/// The list, its timing and its three configurations.
struct ScrollSetup {
    enum Configuration: String {
        case prefetchWithLivePriorities = "live"
        case noPrefetch = "none"
        case prefetchWithoutPriorityChanges = "fixed"
    }

    struct Percentiles {
        var p50: Double
        var p95: Double

        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            func at(_ fraction: Double) -> Double {
                sorted.isEmpty
                    ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
            }
            p50 = at(0.5)
            p95 = at(0.95)
        }
    }

    struct Outcome {
        var steady: Percentiles
        var flingStop: Percentiles
        var originRequests: Int
        var distinctImages: Int
    }

    let rowCount = 300
    let visibleRows = 8
    let prefetchAhead = 24
    let steadyRows = 60
    let steadyInterval = Duration.milliseconds(100)
    let flingRows = 120
    let flingDuration = Duration.seconds(1)
    /// Shared by every connection: about 0.2 s for 8 photos on an idle origin.
    let bandwidth = 1 << 20
    let style = AvatarStyle.roundedRectangle(size: .square(96), cornerRadius: 12)

    static func path(_ row: Int) -> String { "/list/\(row).jpg" }

    /// A fresh cache per configuration, so no configuration warms another's.
    func makeUtil() throws -> (ImageUtil, URL) {
        let directory = try makeScratchDirectory("scroll")
        let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory)))
        return (ImageUtil(manager: manager), directory)
    }

    func request(_ row: Int, origin: SampleOrigin, run: String, priority: AssetRequest.Priority) -> AssetRequest {
        AssetRequest(url: origin.url(for: Self.path(row) + "?run=" + run), priority: priority)
    }

    /// Eight images asked at once on the idle origin, each timed from the ask to its image (after one
    /// unmeasured round, so connections and codecs are warm as they are in the scrolling runs).
    func idleBaseline(origin: SampleOrigin) async throws -> Percentiles {
        _ = try await idleRound(origin: origin, run: "warm-up")
        return try await idleRound(origin: origin, run: "idle")
    }

    private func idleRound(origin: SampleOrigin, run: String) async throws -> Percentiles {
        let (util, directory) = try makeUtil()
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = ContinuousClock.now
        let times = try await withThrowingTaskGroup(of: Double.self) { group in
            for row in 0..<visibleRows {
                let request = request(row, origin: origin, run: run, priority: .high)
                group.addTask { [style] in
                    _ = try await util.image(for: request, style: style)
                    return seconds(ContinuousClock.now - start)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await util.manager.waitForPendingWrites()
        return Percentiles(times)
    }

    func run(_ configuration: Configuration, origin: SampleOrigin) async throws -> Outcome {
        let (util, directory) = try makeUtil()
        defer { try? FileManager.default.removeItem(at: directory) }
        origin.resetLog()
        let list = ScrollingList(setup: self, util: util, origin: origin, configuration: configuration)
        // The list at rest first: its rows shown and its prefetch window filled, as when a user starts to scroll.
        list.scroll(toTop: 0)
        _ = try await list.times(ofRows: 0..<visibleRows)
        await list.waitUntilPrefetched()
        let clock = ContinuousClock()
        var deadline = clock.now
        for top in 1...steadyRows {
            deadline = deadline.advanced(by: steadyInterval)
            try await clock.sleep(until: deadline)
            list.scroll(toTop: top)
        }
        let flingStep = flingDuration / flingRows
        for step in 1...flingRows {
            deadline = deadline.advanced(by: flingStep)
            try await clock.sleep(until: deadline)
            list.scroll(toTop: steadyRows + step)
        }
        let steady = try await list.times(ofRows: visibleRows..<(steadyRows + visibleRows))
        let stopTop = steadyRows + flingRows
        let flingStop = try await list.times(ofRows: stopTop..<(stopTop + visibleRows))
        await list.stop()
        await util.manager.waitForPendingWrites()
        let counts = (0..<rowCount).map { origin.requestCount(for: Self.path($0)) }
        return Outcome(
            steady: Percentiles(steady), flingStop: Percentiles(flingStop),
            originRequests: counts.reduce(0, +), distinctImages: counts.filter { $0 > 0 }.count)
    }
}

/// One run of the list: which rows are visible and prefetched, and each visible row's task and timing.
final class ScrollingList: Sendable {
    private struct Shown {
        let task: ImageTask
        let timing: Task<Double?, Never>
    }

    private struct State {
        var top = -1
        var shown: [Int: Shown] = [:]
        var timings: [Int: Task<Double?, Never>] = [:]
        var prefetched = Set<Int>()
    }

    let setup: ScrollSetup
    let util: ImageUtil
    let origin: SampleOrigin
    let configuration: ScrollSetup.Configuration
    let prefetcher: ImagePrefetcher?
    private let state = Mutex(State())

    init(setup: ScrollSetup, util: ImageUtil, origin: SampleOrigin, configuration: ScrollSetup.Configuration) {
        self.setup = setup
        self.util = util
        self.origin = origin
        self.configuration = configuration
        switch configuration {
        case .noPrefetch: prefetcher = nil
        case .prefetchWithLivePriorities:
            prefetcher = ImagePrefetcher(util: util, style: setup.style, priority: .low)
        case .prefetchWithoutPriorityChanges:
            prefetcher = ImagePrefetcher(util: util, style: setup.style, priority: .normal)
        }
    }

    private var displayPriority: AssetRequest.Priority {
        configuration == .prefetchWithLivePriorities ? .high : .normal
    }

    private func request(_ row: Int, priority: AssetRequest.Priority) -> AssetRequest {
        setup.request(row, origin: origin, run: configuration.rawValue, priority: priority)
    }

    /// Shows rows `top..<top+8`: rows that appear get a task (timed from now), rows that leave are cancelled,
    /// and the prefetch window moves to the 24 rows below.
    func scroll(toTop top: Int) {
        let visible = top..<min(setup.rowCount, top + setup.visibleRows)
        let window = visible.upperBound..<min(setup.rowCount, visible.upperBound + setup.prefetchAhead)
        let (left, entering, leavingWindow) = state.withLock { state -> ([Shown], [Int], [Int]) in
            let previous = state.top
            state.top = top
            let left = state.shown.filter { !visible.contains($0.key) }
            for row in left.keys { state.shown[row] = nil }
            var entering: [Int] = []
            for row in visible where state.shown[row] == nil && state.timings[row] == nil {
                let start = ContinuousClock.now
                let task = util.task(for: request(row, priority: displayPriority), style: setup.style)
                let timing = Task<Double?, Never> {
                    guard (try? await task.image) != nil else { return nil }
                    return seconds(ContinuousClock.now - start)
                }
                state.shown[row] = Shown(task: task, timing: timing)
                state.timings[row] = timing
                entering.append(row)
            }
            // A row that became visible keeps its prefetch (its task joins it); one scrolled past stops.
            var leavingWindow: [Int] = []
            if previous >= 0 {
                leavingWindow = state.prefetched.filter { !window.contains($0) && !visible.contains($0) }
                state.prefetched.subtract(leavingWindow)
            }
            let newInWindow = window.filter { !state.prefetched.contains($0) && state.shown[$0] == nil }
            state.prefetched.formUnion(newInWindow)
            return (Array(left.values), newInWindow, leavingWindow)
        }
        // Prefetches stop before their rows' tasks are cancelled, so a queued prefetch cannot start a second
        // download of a row just left. Without priority changes, prefetches are never stopped or lowered.
        if configuration == .prefetchWithLivePriorities {
            prefetcher?.stopPrefetching(with: leavingWindow.map { request($0, priority: .low) })
        }
        for shown in left { shown.task.cancel() }
        prefetcher?.startPrefetching(with: entering.map { request($0, priority: .low) })
    }

    /// The visible → image times of `rows` (rows cancelled before their image are left out).
    func times(ofRows rows: Range<Int>) async throws -> [Double] {
        var times: [Double] = []
        for row in rows {
            guard let timing = state.withLock({ $0.timings[row] }) else { continue }
            if let time = await timing.value { times.append(time) }
        }
        return times
    }

    /// Returns once the prefetcher has nothing queued or running.
    func waitUntilPrefetched() async {
        guard let prefetcher else { return }
        while prefetcher.pendingCount > 0 { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func stop() async {
        prefetcher?.stopPrefetching()
        let shown = state.withLock { $0.shown.values.map(\.task) }
        for task in shown { task.cancel() }
        for task in shown { _ = try? await task.image }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
