import Foundation
import MediaAssets
import MediaAssetsSQLite

// SQLiteBackend holding 1,000 / 100,000 small (256-byte) entries, and 1,000,000 with `--million`
// (filling it takes minutes). Rows: open time, memory per entry, hit and store time, each against
// the same figure at 1,000 entries. Hit and store rounds alternate between the sizes, so that load
// from other processes falls on every size alike. `--drop-caches` (root only) empties the kernel's
// page cache before each first open, so that open is cold; otherwise every open is warm and says so.

/// The scale rows; the 1,000-entry figures are every other size's baseline.
func runSQLiteScaleBenchmarks(table: BenchmarkTable) async throws {
    let dropsCaches = CommandLine.arguments.contains("--drop-caches")
    let counts = [1_000, 100_000] + (CommandLine.arguments.contains("--million") ? [1_000_000] : [])
    var caches: [SQLiteScaleCache] = []
    defer { for cache in caches { cache.remove() } }
    for count in counts { caches.append(try await SQLiteScaleCache(count: count, dropsCaches: dropsCaches)) }

    let repetitions = 9
    var hits = [[Double]](repeating: [], count: caches.count)
    var hitsCPU = [[Double]](repeating: [], count: caches.count)
    var stores = [[Double]](repeating: [], count: caches.count)
    for round in 0..<repetitions {
        for (index, cache) in caches.enumerated() {
            let hit = try await cache.hitRound()
            hits[index].append(hit.wall)
            hitsCPU[index].append(hit.cpu)
            stores[index].append(try await cache.storeRound(round + 1))
        }
    }
    var warmOpens: [Double] = []
    for cache in caches { warmOpens.append(try await cache.reopenSeconds()) }

    let base = caches[0]
    for (index, cache) in caches.enumerated() {
        let size = cache.count.formatted()
        table.add(
            "SQLite open, \(size) entries (\(cache.openWasCold ? "cold" : "warm") page cache)", unit: "ms",
            median: cache.openSeconds * 1e3, baseline: "same, 1,000 entries", baselineMedian: base.openSeconds * 1e3
        )
        table.add(
            "SQLite open, \(size) entries (warm page cache)", unit: "ms", median: warmOpens[index] * 1e3,
            baseline: "same, 1,000 entries", baselineMedian: warmOpens[0] * 1e3
        )
        // At 1,000 entries the fixed cost (statements, page cache) dominates: no target there.
        table.add(
            "SQLite private memory per entry, \(size) entries", unit: "B", median: cache.privateBytesPerEntry,
            baseline: "budget: 100 B per entry", baselineMedian: 100, target: cache.count >= 100_000 ? 1.0 : nil
        )
        table.add(
            "  file pages mapped resident, per entry", unit: "B", median: cache.mappedBytesPerEntry,
            baseline: "budget: 100 B per entry", baselineMedian: 100
        )
        table.add(
            "SQLite hit 256 B, \(size) entries", unit: "µs", median: median(hits[index]) * 1e6,
            baseline: "same, 1,000 entries", baselineMedian: median(hits[0]) * 1e6, target: 1.2
        )
        // CPU time of every thread of this process: what a hit costs, without the time spent waiting
        // for a core that other processes hold (steadier than wall time on a busy machine).
        table.add(
            "  same, process CPU time", unit: "µs", median: median(hitsCPU[index]) * 1e6,
            baseline: "same, 1,000 entries", baselineMedian: median(hitsCPU[0]) * 1e6, target: 1.2
        )
        table.add(
            "SQLite store 256 B, \(size) entries", unit: "µs", median: median(stores[index]) * 1e6,
            baseline: "same, 1,000 entries", baselineMedian: median(stores[0]) * 1e6, target: 1.2
        )
    }
}

/// One filled database file and its open backend.
private final class SQLiteScaleCache {
    static let limit = 8 << 30
    static let payload = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 151) })

    let count: Int
    let scratch: URL
    let file: URL
    var backend: SQLiteBackend
    /// The first open after filling (cold if the page cache was dropped).
    let openSeconds: Double
    let openWasCold: Bool
    /// Anonymous (private) resident memory that opening and one hit and store round added, per
    /// entry: what the process itself holds.
    private(set) var privateBytesPerEntry = 0.0
    /// File-backed resident memory added, per entry: pages of the memory-mapped database, which are
    /// the kernel's page cache (shared, reclaimable), as a plain file read's would be.
    private(set) var mappedBytesPerEntry = 0.0
    /// The same 1,000 keys each round, spread over the whole key space (a multiplicative hash).
    let workingSet: [CacheKey]

    static func key(_ index: Int) -> CacheKey {
        CacheKey("https://images.example.com/avatars/\(index).jpg?v=\(index &* 7919)")
    }

    init(count: Int, dropsCaches: Bool) async throws {
        self.count = count
        scratch = try makeScratchDirectory("sqlite-scale")
        file = scratch.appendingPathComponent("cache.sqlite")
        workingSet = (0..<1_000).map { Self.key(($0 &* 2_654_435_761 &+ 12_345) % count) }
        let filling = try SQLiteBackend(path: file, sizeLimit: Self.limit)
        // 1,000 entries per transaction: one commit per entry would take an hour at a million.
        for start in stride(from: 0, to: count, by: 1_000) {
            try await filling.storeInOneTransaction(
                (start..<min(count, start + 1_000)).map { (Self.key($0), CacheEntry(data: Self.payload)) }
            )
        }
        await filling.close()

        openWasCold = dropsCaches && dropPageCache()
        let before = residentBytes()
        let start = now()
        backend = try SQLiteBackend(path: file, sizeLimit: Self.limit)
        openSeconds = now() - start
        _ = try await hitRound()
        _ = try await storeRound(0)
        let after = residentBytes()
        privateBytesPerEntry = Double(max(0, after.anonymous - before.anonymous)) / Double(count)
        mappedBytesPerEntry = Double(max(0, after.file - before.file)) / Double(count)
    }

    /// Reads the working set; seconds per hit, of wall time and of this process's CPU time.
    func hitRound() async throws -> (wall: Double, cpu: Double) {
        let start = now()
        let startCPU = processCPUSeconds()
        for key in workingSet { blackHole(try await backend.entry(forKey: key)) }
        let hits = Double(workingSet.count)
        return ((now() - start) / hits, (processCPUSeconds() - startCPU) / hits)
    }

    /// Stores 200 new entries, one transaction each; seconds per store.
    func storeRound(_ round: Int) async throws -> Double {
        let start = now()
        for index in 0..<200 {
            try await backend.store(CacheEntry(data: Self.payload), forKey: CacheKey("new-\(round)-\(index)"))
        }
        return (now() - start) / 200
    }

    /// Closes the backend and opens the file three times; the median seconds of an open.
    func reopenSeconds() async throws -> Double {
        await backend.close()
        var opens: [Double] = []
        for _ in 0..<3 {
            let start = now()
            backend = try SQLiteBackend(path: file, sizeLimit: Self.limit)
            opens.append(now() - start)
            await backend.close()
        }
        return median(opens)
    }

    func remove() { try? FileManager.default.removeItem(at: scratch) }
}

/// The CPU time all threads of this process have used, in seconds.
private func processCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Empties the kernel's page cache (needs root); returns whether it did.
private func dropPageCache() -> Bool {
    sync()
    return (try? "3\n".write(toFile: "/proc/sys/vm/drop_caches", atomically: false, encoding: .utf8)) != nil
}

/// This process's resident memory in bytes (`RssAnon` and `RssFile`), or zeros where unknown.
private func residentBytes() -> (anonymous: Int, file: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    let field = { (name: String) -> Int in
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1_024
    }
    return (field("RssAnon"), field("RssFile"))
}
