import Foundation
import MediaAssets
import MediaAssetsSQLite

/// SQLiteBackend against DiskCache on the same 16 KiB entries: a warm hit (read on the caller's
/// thread, and through the read queue), a warm store, and a 304's metadata update, per operation.
func runSQLiteBenchmarks(table: BenchmarkTable) async throws {
    let operations = 500
    let scratch = try makeScratchDirectory("sqlite")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("cache.sqlite")
    let sqlite = try SQLiteBackend(path: file, sizeLimit: 256 << 20)
    let disk = try DiskCache(directory: scratch.appendingPathComponent("disk"), sizeLimit: 256 << 20)
    let entry = backendBenchmarkEntry()
    let keys = backendBenchmarkKeys(operations)
    for key in keys {
        try await sqlite.store(entry, forKey: key)
        try await disk.store(entry, forKey: key)
    }
    let perOperation = 1e6 / Double(operations)

    // Hits alternate with DiskCache's run by run, so a busy neighbour slows both alike.
    let (sqliteHit, diskHit) = try await alternatingMedians {
        for key in keys { blackHole(try await sqlite.entry(forKey: key)) }
    } baseline: {
        for key in keys { blackHole(try await disk.entry(forKey: key)) }
    }
    table.add(
        "SQLiteBackend hit, 16 KiB entry", unit: "µs", median: sqliteHit * perOperation,
        baseline: "DiskCache hit, 16 KiB entry", baselineMedian: diskHit * perOperation, target: 1.5
    )

    // The other option for a hit: the row read on the backend's read queue, the caller resumed from
    // it (a second connection on the same file, with no inline reads).
    let queued = try SQLiteBackend(
        configuration: .init(path: file, sizeLimit: 256 << 20, largestInlineRead: 0))
    let (queuedHit, inlineHit) = try await alternatingMedians {
        for key in keys { blackHole(try await queued.entry(forKey: key)) }
    } baseline: {
        for key in keys { blackHole(try await sqlite.entry(forKey: key)) }
    }
    table.add(
        "  same, read on the read queue (one hand-off)", unit: "µs", median: queuedHit * perOperation,
        baseline: "same, read on the caller's thread", baselineMedian: inlineHit * perOperation
    )
    await queued.close()

    let sqliteStore = try await medianSecondsAsync(repetitions: 7, warmup: 2) {
        for key in keys { try await sqlite.store(entry, forKey: key) }
    }
    let diskStore = try await medianSecondsAsync(repetitions: 7, warmup: 2) {
        for key in keys { try await disk.store(entry, forKey: key) }
    }
    table.add(
        "SQLiteBackend store, 16 KiB entry", unit: "µs", median: sqliteStore * perOperation,
        baseline: "DiskCache store, 16 KiB entry", baselineMedian: diskStore * perOperation
    )

    // A 304: new dates, the same validators.
    try await addMetadataUpdateRow(to: table, sqlite, name: "SQLiteBackend", entry: entry, keys: keys)
    await sqlite.close()
    await disk.close()
}
