import Foundation
import MediaAssets

/// The 16 KiB image-like entry (with an ETag) the backend benchmarks store, read and revalidate.
func backendBenchmarkEntry() -> CacheEntry {
    CacheEntry(
        data: Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }),
        metadata: CacheMetadata(etag: "\"bench\"", contentType: "image/jpeg")
    )
}

/// `count` keys of avatar URLs, the same in every backend benchmark.
func backendBenchmarkKeys(_ count: Int) -> [CacheKey] {
    (0..<count).map { CacheKey("https://images.example.com/avatars/\($0).jpg") }
}

/// Adds the row of a 304 on `backend` (`updateMetadata` with new dates and the same validators) against storing
/// `entry` again, per key of `keys`; `name` names the backend in the row.
func addMetadataUpdateRow(
    to table: BenchmarkTable, _ backend: some CacheBackend, name: String, entry: CacheEntry, keys: [CacheKey]
) async throws {
    var revalidated = entry.metadata
    let (update, store) = try await alternatingMedians(repetitions: 7) {
        revalidated.freshUntil = Date(timeIntervalSinceNow: 600)
        for key in keys { _ = try await backend.updateMetadata(revalidated, forKey: key) }
    } baseline: {
        for key in keys { try await backend.store(entry, forKey: key) }
    }
    let perOperation = 1e6 / Double(keys.count)
    let size = "\(entry.data.count >> 10) KiB entry"
    table.add(
        "\(name) updateMetadata (a 304), \(size)", unit: "µs", median: update * perOperation,
        baseline: "\(name) store, \(size)", baselineMedian: store * perOperation
    )
}
