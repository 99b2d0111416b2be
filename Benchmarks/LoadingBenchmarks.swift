import Foundation
import MediaAssets
import SampleOrigin
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rows for fetching: the request pool's cost per asker, and a loopback fetch through the manager.
func runLoadingBenchmarks(table: BenchmarkTable) async throws {
    try await runRequestPoolOverhead(table: table)
    try await runLoopbackFetch(table: table)
}

/// A loader that answers from memory; while `isHeld`, answers wait until `releaseAll()`.
private final class InMemoryLoader: DataLoading {
    private let response: DataResponse
    private let waiting = Mutex<(held: Bool, continuations: [CheckedContinuation<Void, Never>], calls: Int)>(
        (false, [], 0)
    )

    init(bytes: Int) {
        response = DataResponse(
            url: URL(string: "https://cdn.example.com/a.jpg")!, statusCode: 200,
            headers: ["Content-Length": String(bytes)], data: Data(repeating: 1, count: bytes)
        )
    }

    var calls: Int { waiting.withLock { $0.calls } }

    func hold() { waiting.withLock { $0.held = true } }

    func releaseAll() {
        let continuations = waiting.withLock { state in
            defer { state = (false, [], state.calls) }
            return state.continuations
        }
        for continuation in continuations { continuation.resume() }
    }

    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
        await withCheckedContinuation { continuation in
            let proceed = waiting.withLock { state -> Bool in
                state.calls += 1
                if state.held { state.continuations.append(continuation) }
                return !state.held
            }
            if proceed { continuation.resume() }
        }
        return response
    }
}

private func runRequestPoolOverhead(table: BenchmarkTable) async throws {
    let askers = 1_000
    let loader = InMemoryLoader(bytes: 16 << 10)
    let manager = try AssetsManager(configuration: .init(disk: nil, loader: loader))
    let url = URL(string: "https://cdn.example.com/a.jpg")!
    var round = 0

    // All askers of one round ask for one key; the loader holds its answer until every asker
    // has joined, so the round measures one fetch shared by 1,000 askers.
    let pooled = try await medianSecondsAsync(repetitions: 9) {
        round += 1
        let request = AssetRequest(url: url, version: "round-\(round)")
        loader.hold()
        let joinsBefore = manager.fetchStatistics.joins
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<askers {
                group.addTask { try await manager.data(for: request, storageType: .lru(.image)).count }
            }
            while manager.fetchStatistics.joins - joinsBefore < askers - 1 { await Task.yield() }
            loader.releaseAll()
            for try await count in group { blackHole(count) }
        }
    }
    let request = URLRequest(url: url)
    let direct = try await medianSecondsAsync(repetitions: 9) {
        for _ in 0..<askers { blackHole(try await loader.load(request, progress: nil)) }
    }
    table.add(
        "request pool: 1,000 askers of one key (per asker)", unit: "µs", median: pooled * 1e6 / Double(askers),
        baseline: "one direct call of the loader", baselineMedian: direct * 1e6 / Double(askers)
    )
}

private func runLoopbackFetch(table: BenchmarkTable) async throws {
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    let size = 1 << 20
    origin.register("/clip.bin", data: Data(repeating: 7, count: size), contentType: "application/octet-stream")
    let url = origin.url(for: "/clip.bin")
    let manager = try AssetsManager(
        configuration: .init(
            memoryPartitions: [.video: .init(costLimit: 64 << 20)], disk: nil
        ))
    let loader = URLSessionLoader()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    let fetchesPerSample = 20
    var round = 0
    let progressCalls = Atomic<Int>(0)
    let progress: @Sendable (FetchProgress) -> Void = { _ in progressCalls.add(1, ordering: .relaxed) }

    // Each fetch is a miss: a new version is a new key for the same URL.
    func throughManager(progress: (@Sendable (FetchProgress) -> Void)?) async throws {
        for _ in 0..<fetchesPerSample {
            round += 1
            let request = AssetRequest(url: url, version: String(round))
            blackHole(try await manager.data(for: request, storageType: .lru(.video), progress: progress))
            try await manager.removeData(forKey: manager.cacheKey(for: request), storageType: .lru(.video))
        }
    }
    let samples = try await alternatingMediansAsync(
        { try await throughManager(progress: progress) },
        { try await throughManager(progress: nil) },
        {
            for _ in 0..<fetchesPerSample {
                blackHole(try await loader.load(URLRequest(url: url), progress: progress))
            }
        },
        { for _ in 0..<fetchesPerSample { blackHole(try await session.data(for: URLRequest(url: url))) } }
    )
    let scale = 1e3 / Double(fetchesPerSample)
    let plain = samples[3] * scale
    table.add(
        "loopback fetch 1 MiB via manager, progress on (miss)", unit: "ms", median: samples[0] * scale,
        baseline: "URLSession.data(for:) alone", baselineMedian: plain, target: 1.1
    )
    table.add(
        "loopback fetch 1 MiB via manager, no progress (miss)", unit: "ms", median: samples[1] * scale,
        baseline: "URLSession.data(for:) alone", baselineMedian: plain
    )
    table.add(
        "  of which: URLSessionLoader.load, progress on", unit: "ms", median: samples[2] * scale,
        baseline: "URLSession.data(for:) alone", baselineMedian: plain
    )
    let perFetch = Double(progressCalls.load(ordering: .relaxed)) / Double(2 * fetchesPerSample * (repetitions + 2))
    print("  (\(String(format: "%.1f", perFetch)) progress calls per 1 MiB fetch)")
}

private let repetitions = 9

/// Times each body in turn, round after round, after two unmeasured rounds; returns each body's
/// median in seconds. Alternating keeps a change in machine load from favouring one side.
func alternatingMediansAsync(
    repetitions: Int = 9, _ bodies: (() async throws -> Void)...
) async throws -> [Double] {
    var samples = Array(repeating: [Double](), count: bodies.count)
    for round in 0..<(repetitions + 2) {
        for (index, body) in bodies.enumerated() {
            let start = now()
            try await body()
            if round >= 2 { samples[index].append(now() - start) }
        }
    }
    return samples.map(median)
}
