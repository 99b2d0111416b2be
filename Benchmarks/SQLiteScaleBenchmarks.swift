import Foundation
import MediaAssets
import MediaAssetsSQLite

// SQLiteBackend holding 1,000 / 100,000 small (256-byte) entries, and 1,000,000 with `--million`
// (filling it takes minutes). Rows: open time, resident memory per entry, hit and store time, each
// against the same figure at 1,000 entries. `--drop-caches` (root only) empties the kernel's page
// cache before each first open, so that open is cold; otherwise every open is warm and says so.

/// The scale rows; the 1,000-entry figures are every other size's baseline.
func runSQLiteScaleBenchmarks(table: BenchmarkTable) async throws {
    let dropsCaches = CommandLine.arguments.contains("--drop-caches")
    let counts = [1_000, 100_000] + (CommandLine.arguments.contains("--million") ? [1_000_000] : [])
    var base: SQLiteScaleFigures?
    for count in counts {
        let figures = try await measureSQLiteScale(count: count, dropsCaches: dropsCaches)
        let reference = base ?? figures
        base = reference
        let size = count.formatted()
        let openKind = figures.openWasCold ? "cold" : "warm"
        table.add(
            "SQLite open, \(size) entries (\(openKind) page cache)", unit: "ms", median: figures.openSeconds * 1e3,
            baseline: "same, 1,000 entries", baselineMedian: reference.openSeconds * 1e3
        )
        table.add(
            "SQLite open, \(size) entries (warm page cache)", unit: "ms", median: figures.warmOpenSeconds * 1e3,
            baseline: "same, 1,000 entries", baselineMedian: reference.warmOpenSeconds * 1e3
        )
        // At 1,000 entries the fixed cost (statements, page cache) dominates: no target there.
        table.add(
            "SQLite private memory per entry, \(size) entries", unit: "B", median: figures.privateBytesPerEntry,
            baseline: "budget: 100 B per entry", baselineMedian: 100, target: count >= 100_000 ? 1.0 : nil
        )
        table.add(
            "  file pages mapped resident, per entry", unit: "B", median: figures.mappedBytesPerEntry,
            baseline: "budget: 100 B per entry", baselineMedian: 100
        )
        table.add(
            "SQLite hit 256 B, \(size) entries", unit: "µs", median: figures.hitSeconds * 1e6,
            baseline: "same, 1,000 entries", baselineMedian: reference.hitSeconds * 1e6, target: 1.2
        )
        table.add(
            "SQLite store 256 B, \(size) entries", unit: "µs", median: figures.storeSeconds * 1e6,
            baseline: "same, 1,000 entries", baselineMedian: reference.storeSeconds * 1e6, target: 1.2
        )
    }
}

private struct SQLiteScaleFigures {
    /// The first open after filling (cold if the page cache was dropped).
    var openSeconds: Double
    var openWasCold: Bool
    /// The median of three more opens.
    var warmOpenSeconds: Double
    /// Anonymous (private) resident memory the backend added (open, then the hit and store
    /// rounds), per entry: what the process itself holds.
    var privateBytesPerEntry: Double
    /// File-backed resident memory added, per entry: pages of the memory-mapped database, which
    /// are the kernel's page cache (shared, reclaimable), as a plain file read's would be.
    var mappedBytesPerEntry: Double
    /// Per operation, over a fixed working set of 1,000 keys spread over the whole file.
    var hitSeconds: Double
    var storeSeconds: Double
}

private func measureSQLiteScale(count: Int, dropsCaches: Bool) async throws -> SQLiteScaleFigures {
    let scratch = try makeScratchDirectory("sqlite-scale")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("cache.sqlite")
    let limit = 8 << 30
    let payload = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 151) })
    let key = { (index: Int) in CacheKey("https://images.example.com/avatars/\(index).jpg?v=\(index &* 7919)") }
    do {
        let filling = try SQLiteBackend(path: file, sizeLimit: limit)
        // Filled 1,000 entries per transaction: one commit per entry would take an hour at a million.
        for start in stride(from: 0, to: count, by: 1_000) {
            try await filling.storeInOneTransaction(
                (start..<min(count, start + 1_000)).map { (key($0), CacheEntry(data: payload)) }
            )
        }
        await filling.close()
    }

    let openWasCold = dropsCaches && dropPageCache()
    let residentBefore = residentBytes()
    var start = now()
    let backend = try SQLiteBackend(path: file, sizeLimit: limit)
    let openSeconds = now() - start

    // The same 1,000 keys each round, spread over the whole key space (a multiplicative hash).
    let workingSet = (0..<1_000).map { key(($0 &* 2_654_435_761 &+ 12_345) % count) }
    let hitSeconds =
        try await medianSecondsAsync(repetitions: 7, warmup: 1) {
            for key in workingSet { blackHole(try await backend.entry(forKey: key)) }
        } / Double(workingSet.count)
    var round = 0
    let storeSeconds =
        try await medianSecondsAsync(repetitions: 7, warmup: 1) {
            round += 1
            for index in 0..<1_000 {
                try await backend.store(CacheEntry(data: payload), forKey: CacheKey("new-\(round)-\(index)"))
            }
        } / 1_000
    let residentAfter = residentBytes()
    let privateBytesPerEntry = Double(max(0, residentAfter.anonymous - residentBefore.anonymous)) / Double(count)
    let mappedBytesPerEntry = Double(max(0, residentAfter.file - residentBefore.file)) / Double(count)
    await backend.close()

    var opens: [Double] = []
    for _ in 0..<3 {
        start = now()
        let reopened = try SQLiteBackend(path: file, sizeLimit: limit)
        opens.append(now() - start)
        await reopened.close()
    }
    return SQLiteScaleFigures(
        openSeconds: openSeconds, openWasCold: openWasCold, warmOpenSeconds: median(opens),
        privateBytesPerEntry: privateBytesPerEntry, mappedBytesPerEntry: mappedBytesPerEntry, hitSeconds: hitSeconds,
        storeSeconds: storeSeconds
    )
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
