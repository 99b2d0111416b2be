import Foundation
import MediaAssets
import MediaAssetsSQLite

/// Removing one video resource (64 chunk entries among 2,000 others) with one `removeEntries(.keyPrefix)`
/// against 64 `removeEntry` calls, on DiskCache and SQLiteBackend.
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
        func timed(_ removal: () async throws -> Void) async throws -> Double {
            var samples: [Double] = []
            for _ in 0..<7 {
                for key in chunkKeys { try await backend.store(chunk, forKey: key) }
                let start = now()
                try await removal()
                samples.append(now() - start)
            }
            return median(samples)
        }
        let prefix = "https://video.example.com/movie.mp4#"
        let batch = try await timed { try await backend.removeEntries(.keyPrefix(prefix)) }
        let oneByOne = try await timed { for key in chunkKeys { try await backend.removeEntry(forKey: key) } }
        table.add(
            "\(name) removeEntries(.keyPrefix), 64 of 2,064", unit: "µs", median: batch * 1e6,
            baseline: "64 × \(name) removeEntry", baselineMedian: oneByOne * 1e6
        )
    }
}
