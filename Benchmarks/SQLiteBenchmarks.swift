import Foundation
import MediaAssets
import MediaAssetsSQLite

/// SQLiteBackend against DiskCache on the same 16 KiB entries: a warm hit and a warm store, per operation.
func runSQLiteBenchmarks(table: BenchmarkTable) async throws {
    let operations = 500
    let scratch = try makeScratchDirectory("sqlite")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sqlite = try SQLiteBackend(path: scratch.appendingPathComponent("cache.sqlite"), sizeLimit: 256 << 20)
    let disk = try DiskCache(directory: scratch.appendingPathComponent("disk"), sizeLimit: 256 << 20)
    let entry = CacheEntry(
        data: Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }),
        metadata: CacheMetadata(etag: "\"bench\"", contentType: "image/jpeg")
    )
    let keys = (0..<operations).map { CacheKey("https://images.example.com/avatars/\($0).jpg") }
    for key in keys {
        try await sqlite.store(entry, forKey: key)
        try await disk.store(entry, forKey: key)
    }
    let perOperation = 1e6 / Double(operations)

    let sqliteHit = try await medianSecondsAsync(repetitions: 7, warmup: 2) {
        for key in keys { blackHole(try await sqlite.entry(forKey: key)) }
    }
    let diskHit = try await medianSecondsAsync(repetitions: 7, warmup: 2) {
        for key in keys { blackHole(try await disk.entry(forKey: key)) }
    }
    table.add(
        "SQLiteBackend hit, 16 KiB entry", unit: "µs", median: sqliteHit * perOperation,
        baseline: "DiskCache hit, 16 KiB entry", baselineMedian: diskHit * perOperation, target: 2
    )

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
    await sqlite.close()
    await disk.close()
}
