import Foundation
import MediaAssets
import MediaAssetsSQLite

/// Removing one video resource (64 chunk entries among 2,000 others) with one `removeEntries(.keyPrefix)`
/// against 64 `removeEntry` calls, and one asset (its original, 10 variants and 64 chunks) with one
/// `removeEntries(.asset)` against 75 `removeEntry` calls, on DiskCache and SQLiteBackend; and the
/// manager's `removeAsset` over memory and disk against 75 `removeData` calls to each.
func runStorageRemovalBenchmarks(table: BenchmarkTable) async throws {
    let scratch = try makeScratchDirectory("removal")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let backends: [(name: String, backend: any CacheBackend)] = [
        ("DiskCache", try DiskCache(directory: scratch.appendingPathComponent("disk"), sizeLimit: 256 << 20)),
        (
            "SQLiteBackend",
            try SQLiteBackend(path: scratch.appendingPathComponent("cache.sqlite"), sizeLimit: 256 << 20)
        ),
    ]
    let chunk = CacheEntry(data: Data(repeating: 7, count: 4_096))
    let chunkKeys = (0..<64).map { CacheKey("https://video.example.com/movie.mp4#\($0)") }
    for (name, backend) in backends {
        for index in 0..<2_000 {
            try await backend.store(chunk, forKey: CacheKey("https://images.example.com/\(index)"))
        }
        let timed = removalTimer { for key in chunkKeys { try await backend.store(chunk, forKey: key) } }
        let prefix = "https://video.example.com/movie.mp4#"
        let batch = try await timed { try await backend.removeEntries(.keyPrefix(prefix)) }
        let oneByOne = try await timed { for key in chunkKeys { try await backend.removeEntry(forKey: key) } }
        table.add(
            "\(name) removeEntries(.keyPrefix), 64 of 2,064", unit: "µs", median: batch * 1e6,
            baseline: "64 × \(name) removeEntry", baselineMedian: oneByOne * 1e6
        )
        let asset = try await timedAssetRemoval(backend)
        table.add(
            "\(name) removeEntries(.asset), 75 of 2,075", unit: "µs", median: asset.batch * 1e6,
            baseline: "75 × \(name) removeEntry", baselineMedian: asset.oneByOne * 1e6
        )
    }
    try await runManagerAssetRemoval(table: table, scratch: scratch)
}

/// The keys of one image or video asset: the original, 10 variants and 64 chunks.
let benchmarkAssetKeys: [CacheKey] = {
    let asset = CacheKey("https://media.example.com/clip.mp4")
    return [asset] + (0..<10).map { asset.variant("v\($0)") } + (0..<64).map(asset.chunk)
}()

/// One `removeEntries(.asset)` against a `removeEntry` per key, each after storing the asset again.
func timedAssetRemoval(_ backend: any CacheBackend) async throws -> (batch: Double, oneByOne: Double) {
    let entry = CacheEntry(data: Data(repeating: 5, count: 4_096))
    let timed = removalTimer { for key in benchmarkAssetKeys { try await backend.store(entry, forKey: key) } }
    let batch = try await timed { try await backend.removeEntries(.asset(benchmarkAssetKeys[0])) }
    let oneByOne = try await timed { for key in benchmarkAssetKeys { try await backend.removeEntry(forKey: key) } }
    return (batch, oneByOne)
}

/// `AssetsManager.removeAsset` (every storage type) against `removeData` of each key from `.lru(.image)`
/// and `.disk`, the asset stored through `.hybrid(.image)` among 2,000 other entries.
private func runManagerAssetRemoval(table: BenchmarkTable, scratch: URL) async throws {
    let manager = try AssetsManager(
        configuration: .init(disk: .init(directory: scratch.appendingPathComponent("manager"))))
    let bytes = Data(repeating: 3, count: 4_096)
    for index in 0..<2_000 {
        try await manager.writeData(
            bytes, forKey: CacheKey("https://images.example.com/\(index)"), storageType: .hybrid(.image))
    }
    let timed = removalTimer {
        for key in benchmarkAssetKeys { try await manager.writeData(bytes, forKey: key, storageType: .hybrid(.image)) }
    }
    let asset = try await timed { try await manager.removeAsset(forKey: benchmarkAssetKeys[0]) }
    let oneByOne = try await timed {
        for key in benchmarkAssetKeys {
            try await manager.removeData(forKey: key, storageType: .lru(.image))
            try await manager.removeData(forKey: key, storageType: .disk)
        }
    }
    table.add(
        "AssetsManager removeAsset, 75 keys, memory + disk", unit: "µs", median: asset * 1e6,
        baseline: "75 × removeData from .lru(.image) and .disk", baselineMedian: oneByOne * 1e6
    )
}

/// A timer of removals: each call times one removal, 7 times, after `refill` (untimed) stored the
/// entries again, and returns the median in seconds.
func removalTimer(
    refill: @escaping () async throws -> Void
) -> (_ removal: () async throws -> Void) async throws -> Double {
    { removal in
        var samples: [Double] = []
        for _ in 0..<7 {
            try await refill()
            let start = now()
            try await removal()
            samples.append(now() - start)
        }
        return median(samples)
    }
}
