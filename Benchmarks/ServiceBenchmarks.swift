import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import Synchronization

/// `ImageUtil` as a service uses it: how late an unrelated task wakes while a burst of decodes runs (CPU work
/// on the manager's executor against the cooperative pool), avatars per second on every core against one, and
/// an encoded variant served from storage against reading its bytes from a file.
func runServiceBenchmarks(table: BenchmarkTable) async throws {
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    try await runHeartbeat(table: table, origin: origin)
    try await runAvatarThroughput(table: table, origin: origin)
    try await runEncodedHits(table: table, origin: origin)
}

// MARK: Heartbeat

/// How late a task that sleeps 2 ms in a loop wakes, in seconds, while `work` runs (or for `idleSeconds`).
private func heartbeatLateness(
    idleSeconds: Double? = nil, during work: (() async throws -> Void)? = nil
) async throws -> [Double] {
    let running = HeartbeatFlag()
    let heartbeat = Task.detached { () -> [Double] in
        var lateness: [Double] = []
        while running.isRunning {
            let start = now()
            try? await Task.sleep(for: .milliseconds(2))
            lateness.append(max(0, now() - start - 0.002))
        }
        return lateness
    }
    if let work { try await work() }
    if let idleSeconds { try await Task.sleep(for: .seconds(idleSeconds)) }
    running.stop()
    return await heartbeat.value
}

private final class HeartbeatFlag: Sendable {
    private let running = Mutex(true)
    var isRunning: Bool { running.withLock { $0 } }
    func stop() { running.withLock { $0 = false } }
}

/// 40 asks, each for a new version (a miss) of a 10 MP photo as a 1024 px square: a full decode, a resample and
/// a JPEG encode each, run by a manager whose CPU work goes to `executor`.
private func runTenMegapixelBurst(
    origin: SampleOrigin, url: URL, executor: AssetsManager.Configuration.Executor, round: String
) async throws -> [Double] {
    let directory = try makeScratchDirectory("service-heartbeat")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory), executor: executor))
    let util = ImageUtil(manager: manager)
    let style = AvatarStyle.rectangle(size: .square(1024))
    let lateness = try await heartbeatLateness {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for ask in 0..<40 {
                let request = AssetRequest(url: url, version: "\(round)-\(ask)")
                group.addTask { blackHole(try await util.image(for: request, style: style)) }
            }
            try await group.waitForAll()
        }
    }
    await manager.shutdown()
    return lateness
}

private func runHeartbeat(table: BenchmarkTable, origin: SampleOrigin) async throws {
    let photo = try makePhotoLikeJPEG(width: 3648, height: 2736, seed: 10)
    origin.register("/ten-megapixels.jpg", data: photo, contentType: "image/jpeg")
    let url = origin.url(for: "/ten-megapixels.jpg")
    let idle = try await heartbeatLateness(idleSeconds: 1)
    let onExecutor = try await runTenMegapixelBurst(
        origin: origin, url: url, executor: .threads(ProcessInfo.processInfo.activeProcessorCount), round: "executor")
    let onPool = try await runTenMegapixelBurst(
        origin: origin, url: url, executor: .custom(globalConcurrentExecutor), round: "pool")
    let milliseconds = { (samples: [Double], fraction: Double) in percentile(samples, fraction) * 1e3 }
    table.add(
        "heartbeat late p50, 40 asks 10 MP jpeg (executor)", unit: "ms", median: milliseconds(onExecutor, 0.5),
        baseline: "idle heartbeat p50", baselineMedian: milliseconds(idle, 0.5)
    )
    table.add(
        "heartbeat late p99, same burst (executor)", unit: "ms", median: milliseconds(onExecutor, 0.99),
        baseline: "idle heartbeat p99", baselineMedian: milliseconds(idle, 0.99)
    )
    table.add(
        "heartbeat late p99 during the burst (target ≤ 5 ms)", unit: "ms", median: milliseconds(onExecutor, 0.99),
        baseline: "the target, 5 ms", baselineMedian: 5, target: 1
    )
    table.add(
        "heartbeat late p99, same burst on the coop pool", unit: "ms", median: milliseconds(onPool, 0.99),
        baseline: "idle heartbeat p99", baselineMedian: milliseconds(idle, 0.99)
    )
}

// MARK: Avatars on every core

/// Seconds per avatar: `count` circles rendered from originals already on disk (decode, resample, encode, store).
private func secondsPerAvatar(
    urls: [URL], directory: URL, threads: Int, diameter: Int
) async throws -> Double {
    let manager = try AssetsManager(
        configuration: .init(memoryPartitions: [:], disk: .init(directory: directory), executor: .threads(threads)))
    let util = ImageUtil(manager: manager)
    let style = AvatarStyle.circle(diameter: diameter)
    let start = now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for url in urls {
            group.addTask { blackHole(try await util.image(for: url, style: style, storageType: .disk)) }
        }
        try await group.waitForAll()
    }
    let elapsed = now() - start
    await manager.shutdown()
    await (try? manager.backend(for: .disk) as? DiskCache)?.close()
    return elapsed / Double(urls.count)
}

private func runAvatarThroughput(table: BenchmarkTable, origin: SampleOrigin) async throws {
    let count = 120
    let urls = try (0..<count).map { index -> URL in
        let photo = try makePhotoLikeJPEG(width: 1024, height: 768, seed: UInt64(500 + index % 12))
        origin.register("/throughput/\(index).jpg", data: photo, contentType: "image/jpeg")
        return origin.url(for: "/throughput/\(index).jpg")
    }
    let directory = try makeScratchDirectory("service-throughput")
    defer { try? FileManager.default.removeItem(at: directory) }
    // The originals on disk first: what is timed is CPU work (and the stores), not the origin.
    do {
        let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory)))
        await Prefetcher(manager: manager, maxConcurrentRequests: 8).prefetch(urls.map { AssetRequest(url: $0) })
        await manager.shutdown()
        await (try? manager.backend(for: .disk) as? DiskCache)?.close()
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var allCores: [Double] = []
    var oneCore: [Double] = []
    // Alternated, each with a diameter of its own (a miss every time), so drift in load hits both alike.
    for round in 0..<4 {
        oneCore.append(try await secondsPerAvatar(urls: urls, directory: directory, threads: 1, diameter: 80 + round))
        allCores.append(
            try await secondsPerAvatar(urls: urls, directory: directory, threads: cores, diameter: 90 + round))
    }
    let perSecond = { (seconds: Double) in 1 / seconds }
    table.add(
        "avatars/s, \(cores) executor threads (\(count) circles)", unit: "/s", median: perSecond(median(allCores)),
        baseline: "executor of 1 thread", baselineMedian: perSecond(median(oneCore))
    )
    table.add(
        "time per avatar, all cores (target ≤ 1/1.8 of one)", unit: "ms", median: median(allCores) * 1e3,
        baseline: "executor of 1 thread", baselineMedian: median(oneCore) * 1e3, target: 1 / 1.8
    )
}

// MARK: Encoded hits

private func runEncodedHits(table: BenchmarkTable, origin: SampleOrigin) async throws {
    let photo = try makePhotoLikeJPEG(width: 1024, height: 768, seed: 77)
    origin.register("/encoded.jpg", data: photo, contentType: "image/jpeg")
    let request = AssetRequest(url: origin.url(for: "/encoded.jpg"))
    let directory = try makeScratchDirectory("service-encoded")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory)))
    let util = ImageUtil(manager: manager)
    let style = AvatarStyle.circle(diameter: 96)
    let format = ImageEncoder.webp(quality: 80)
    let calls = 2_000
    for storageType in [StorageType.hybrid(.image), .disk] {
        // `.hybrid` answers from the bytes its memory tier kept when the variant was made; `.disk` reads the file.
        let kept: AssetSource = storageType == .disk ? .storage : .memory
        let made = try await util.encodedImage(for: request, style: style, format: format, storageType: storageType)
        await manager.waitForPendingWrites()
        let file = directory.appendingPathComponent("variant-\(storageType).bin")
        try made.data.write(to: file)
        let hits = try await Task.detached {
            try await medianSecondsAsync(repetitions: 9) {
                for _ in 0..<calls {
                    let hit = try await util.encodedImage(
                        for: request, style: style, format: format, storageType: storageType)
                    precondition(hit.source == kept)
                    blackHole(hit)
                }
            }
        }.value
        let reads = try medianSeconds(repetitions: 9) {
            for _ in 0..<calls { blackHole(try Data(contentsOf: file)) }
        }
        table.add(
            "encoded variant hit, \(storageType) (\(made.data.count) B webp)", unit: "µs",
            median: hits / Double(calls) * 1e6,
            baseline: "Data(contentsOf:) of the same bytes", baselineMedian: reads / Double(calls) * 1e6, target: 1.2
        )
    }
    await manager.shutdown()
}
