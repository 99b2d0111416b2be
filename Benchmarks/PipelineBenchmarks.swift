import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The staged pipeline through `ImageUtil`: a cold miss against its stages measured alone, memory and
/// stored-variant hits against their floors, and a burst's peak memory with and without stage limits.
func runPipelineBenchmarks(table: BenchmarkTable) async throws {
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    try await runColdMiss(table: table, origin: origin)
    try await runHits(table: table, origin: origin)
    try await runLimiterAdmission(table: table)
    try await runBurst(table: table, origin: origin)
}

private func makeUtil(_ directory: URL) throws -> ImageUtil {
    ImageUtil(manager: try AssetsManager(configuration: .init(disk: .init(directory: directory))))
}

private func runColdMiss(table: BenchmarkTable, origin: SampleOrigin) async throws {
    let photo = try makePhotoLikeJPEG(width: 2048, height: 1536, seed: 42)
    origin.register("/photo.jpg", data: photo, contentType: "image/jpeg")
    let url = origin.url(for: "/photo.jpg")
    let directory = try makeScratchDirectory("pipeline-cold")
    defer { try? FileManager.default.removeItem(at: directory) }
    let util = try makeUtil(directory)
    let style = AvatarStyle.circle(diameter: 96)
    let asks = 8
    var round = 0
    // Each ask is a miss (a new version is a new key); the background writes are awaited untimed.
    var samples: [Double] = []
    for sample in 0..<8 {
        let start = now()
        for _ in 0..<asks {
            round += 1
            blackHole(try await util.image(for: AssetRequest(url: url, version: String(round)), style: style))
        }
        let elapsed = now() - start
        await util.manager.waitForPendingWrites()
        if sample > 0 { samples.append(elapsed) }
    }
    let throughUtil = median(samples)

    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    let renderer = util.renderer
    let stages = try await medianSecondsAsync(repetitions: 7, warmup: 1) {
        for _ in 0..<asks {
            let (data, _) = try await session.data(for: URLRequest(url: url))
            let decoded = try renderer.decode(data, targetSize: style.targetSize)
            blackHole(try renderer.encode(try renderer.render(decoded, style: style)))
        }
    }
    table.add(
        "ImageUtil cold miss \(photo.count >> 10) KiB jpeg -> circle 96", unit: "ms",
        median: throughUtil / Double(asks) * 1e3,
        baseline: "download + decode + render + encode alone", baselineMedian: stages / Double(asks) * 1e3,
        target: 1.1
    )
}

private func runHits(table: BenchmarkTable, origin: SampleOrigin) async throws {
    let photo = try makePhotoLikeJPEG(width: 1024, height: 768, seed: 7)
    origin.register("/hit.jpg", data: photo, contentType: "image/jpeg")
    let url = origin.url(for: "/hit.jpg")
    let directory = try makeScratchDirectory("pipeline-hits")
    defer { try? FileManager.default.removeItem(at: directory) }
    let util = try makeUtil(directory)
    let style = AvatarStyle.circle(diameter: 96)
    let request = AssetRequest(url: url)
    _ = try await util.image(for: request, style: style)
    await util.manager.waitForPendingWrites()

    // Timed by the CPU clock of the thread running the loop (a hit never suspends, so the loop stays on it).
    let calls = 10_000
    let memoryHit = try await Task.detached {
        var samples: [Double] = []
        for sample in 0..<10 {
            let start = threadCPUSeconds()
            for _ in 0..<calls { blackHole(try await util.image(for: request, style: style)) }
            if sample > 0 { samples.append(threadCPUSeconds() - start) }
        }
        return median(samples)
    }.value
    let memory = try util.manager.backend(for: .lru(.image)) as! MemoryCache
    let variantKey = util.cacheKey(for: request, style: style)
    var lookups: [Double] = []
    for sample in 0..<10 {
        let start = threadCPUSeconds()
        for _ in 0..<calls { blackHole(memory.entry(forKey: variantKey)) }
        if sample > 0 { lookups.append(threadCPUSeconds() - start) }
    }
    let hitMicroseconds = memoryHit / Double(calls) * 1e6
    table.add(
        "ImageUtil.image(for:style:) memory hit (≤ 0.5 µs)", unit: "µs", median: hitMicroseconds,
        baseline: "MemoryCache lookup of the variant alone", baselineMedian: median(lookups) / Double(calls) * 1e6
    )
    print(
        "  (memory hit \(String(format: "%.2f", hitMicroseconds)) µs: "
            + "\(hitMicroseconds <= 0.5 ? "ok" : "MISS") against ≤ 0.5 µs)"
    )

    // Through `.disk`, which keeps no decoded values: every ask reads the stored variant and decodes it. The hit,
    // the decode alone and the disk read alone are timed in turn, sample by sample, so load shifts all three alike.
    let rounds = 200
    _ = try await util.image(for: request, style: style, storageType: .disk)
    await util.manager.waitForPendingWrites()
    guard let variantBytes = try await util.manager.readData(forKey: variantKey, storageType: .disk) else {
        throw BenchmarkError("the variant was not stored")
    }
    let renderer = util.renderer
    let disk = try util.manager.backend(for: .disk)
    var hitSamples: [Double] = []
    var decodeSamples: [Double] = []
    var readSamples: [Double] = []
    for sample in 0..<10 {
        let hit = try await Task.detached {
            let start = now()
            for _ in 0..<rounds { blackHole(try await util.image(for: request, style: style, storageType: .disk)) }
            return now() - start
        }.value
        let start = now()
        for _ in 0..<rounds { blackHole(try renderer.decode(variantBytes, targetSize: nil)) }
        let decode = now() - start
        let read = try await Task.detached {
            let start = now()
            for _ in 0..<rounds { blackHole(try await disk.entry(forKey: variantKey)) }
            return now() - start
        }.value
        if sample > 0 {
            hitSamples.append(hit)
            decodeSamples.append(decode)
            readSamples.append(read)
        }
    }
    let perRound = 1e6 / Double(rounds)
    let (storedHit, decodeAlone, readAlone) =
        (median(hitSamples) * perRound, median(decodeSamples) * perRound, median(readSamples) * perRound)
    table.add(
        "stored-variant hit (circle 96, \(variantBytes.count) B)", unit: "µs", median: storedHit,
        baseline: "decoding the same bytes alone", baselineMedian: decodeAlone, target: 1.1
    )
    let rest = storedHit - decodeAlone - readAlone
    print(
        "  (stored-variant hit: decode \(String(format: "%.1f", decodeAlone)) µs + DiskCache read "
            + "\(String(format: "%.1f", readAlone)) µs + the rest \(String(format: "%.1f", rest)) µs: "
            + "flight, limiter, hops)"
    )
}

/// Admissions at depth, against a shallow queue. The queue alone: a pop and an insert on a `WorkLimiter`'s waiter
/// queue kept 10,000 long against 10 long (a heap: O(log n); the array it replaced shifted every waiter on each
/// admission). And a whole admission (the slot passed to the first waiter, whose task resumes, runs and passes it
/// on) with 10,000 waiting against 10, drains alternating: beyond the queue, it pays for resuming tasks whose
/// memory has gone cold.
private func runLimiterAdmission(table: BenchmarkTable) async throws {
    let operations = 1_000_000
    var queueSamples: (deep: [Double], shallow: [Double]) = ([], [])
    for _ in 0..<7 {
        var start = threadCPUSeconds()
        blackHole(WaiterQueue<UInt64>._admit(operations: operations, depth: 10_000))
        queueSamples.deep.append(threadCPUSeconds() - start)
        start = threadCPUSeconds()
        blackHole(WaiterQueue<UInt64>._admit(operations: operations, depth: 10))
        queueSamples.shallow.append(threadCPUSeconds() - start)
    }
    table.add(
        "waiter queue pop + insert, 10,000 waiting", unit: "ns",
        median: median(queueSamples.deep) / 1e-9 / Double(operations),
        baseline: "10 waiting", baselineMedian: median(queueSamples.shallow) / 1e-9 / Double(operations), target: 4
    )

    let total = 10_000
    var deepSamples: [Double] = []
    var shallowSamples: [Double] = []
    for _ in 0..<5 {
        deepSamples.append(try await drainSeconds(queued: total))
        var shallow = 0.0
        for _ in 0..<(total / 10) { shallow += try await drainSeconds(queued: 10) }
        shallowSamples.append(shallow)
    }
    table.add(
        "WorkLimiter admission, 10,000 waiting", unit: "µs", median: median(deepSamples) / Double(total) * 1e6,
        baseline: "10 waiting", baselineMedian: median(shallowSamples) / Double(total) * 1e6
    )
}

/// Seconds from freeing the slot of a one-slot limiter to the last of `queued` waiters done.
private func drainSeconds(queued: Int) async throws -> Double {
    let limiter = WorkLimiter(limit: 1)
    // The slot's holder waits for the stream to finish.
    let (gate, opening) = AsyncStream<Void>.makeStream()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await limiter.run { for await _ in gate {} } }
        while limiter.peakConcurrency == 0 { await Task.yield() }
        for _ in 0..<queued {
            group.addTask { try await limiter.run { blackHole(0) } }
        }
        while limiter.waitingCount < queued { await Task.yield() }
        let start = now()
        opening.finish()
        try await group.waitForAll()
        return now() - start
    }
}

/// 10,000 concurrent asks over 1,000 photos in three styles, each burst in a process of its own so that
/// neither inherits the other's heap: the peak is the burst's alone.
private func runBurst(table: BenchmarkTable, origin _: SampleOrigin) async throws {
    let unbounded = try runBurstChild("unbounded")
    let bounded = try runBurstChild("bounded")
    table.add(
        "burst 10k asks / 1k photos: peak RSS growth", unit: "MiB", median: bounded.peakGrowth / 1_048_576,
        baseline: "same burst, stages unbounded", baselineMedian: unbounded.peakGrowth / 1_048_576
    )
    // Issue 23's bound: the image partition (128 MiB by default) plus 64 MiB.
    table.add(
        "burst peak RSS growth (target ≤ partition + 64 MiB)", unit: "MiB", median: bounded.peakGrowth / 1_048_576,
        baseline: "128 MiB partition + 64 MiB", baselineMedian: 192, target: 1
    )
    table.add(
        "burst 10k asks / 1k photos: time", unit: "ms", median: bounded.seconds * 1e3,
        baseline: "same burst, stages unbounded", baselineMedian: unbounded.seconds * 1e3
    )
}

private func runBurstChild(_ mode: String) throws -> (seconds: Double, peakGrowth: Double) {
    try runBenchmarkChild(["--burst", mode])
}

/// Runs this executable with `arguments` (a row's child mode), which prints its seconds and peak growth.
func runBenchmarkChild(_ arguments: [String]) throws -> (seconds: Double, peakGrowth: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard process.terminationStatus == 0, fields.count == 2 else {
        throw BenchmarkError("\(arguments.joined(separator: " ")) failed: \(String(decoding: data, as: UTF8.self))")
    }
    return (fields[0], fields[1])
}

/// The child side of the burst row: `benchmarks --burst bounded|unbounded` prints seconds and peak growth.
func runBurstInThisProcess(mode: String) async throws {
    let origin = SampleOrigin()
    try origin.start()
    defer { origin.stop() }
    let photos = 1_000
    for index in 0..<photos {
        let jpeg = try makePhotoLikeJPEG(width: 512, height: 384, seed: UInt64(1_000 + index % 50))
        origin.register("/burst/\(index).jpg", data: jpeg, contentType: "image/jpeg")
    }
    let styles: [AvatarStyle] = [.circle(diameter: 96), .circle(diameter: 48), .rectangle(size: .square(64))]
    let directory = try makeScratchDirectory("pipeline-burst")
    defer { try? FileManager.default.removeItem(at: directory) }
    let unbounded = mode == "unbounded"
    let stageLimits: AssetsManager.Configuration.StageLimits =
        unbounded ? .init(fetches: 10_000, decodes: 10_000, processes: 10_000, variants: 10_000) : .init()
    let manager = try AssetsManager(
        configuration: .init(
            disk: .init(directory: directory), stageLimits: stageLimits, stagedWriteLimit: unbounded ? .max : 16 << 20))
    let util = ImageUtil(manager: manager)
    let before = currentResidentMemory()
    resetPeakResidentMemory()
    let start = now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for ask in 0..<10_000 {
            let url = origin.url(for: "/burst/\(ask % photos).jpg")
            let style = styles[(ask / photos) % styles.count]
            group.addTask { blackHole(try await util.image(for: url, style: style)) }
        }
        try await group.waitForAll()
    }
    let seconds = now() - start
    await util.manager.shutdown()
    let peak = peakResidentMemory()
    let requests = origin.totalRequestCount
    guard requests == photos else { throw BenchmarkError("the burst made \(requests) origin requests, not \(photos)") }
    print(seconds, peak - before)
}

/// Resets the kernel's resident high-water mark of this process (Linux `clear_refs`).
func resetPeakResidentMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// The resident high-water mark of this process in bytes (`VmHWM`), or 0 where unknown.
func peakResidentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
    return kilobytes * 1_024
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The resident memory of this process in bytes (`VmRSS`), or 0 where unknown.
func currentResidentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
}
