import Foundation
import MediaAssets
import MediaAssetsEncryption
import MediaAssetsSQLite

/// Encryption at rest on 16 KiB entries: an `EncryptedBackend` over DiskCache and SQLiteBackend against
/// the same backend unencrypted, a warm hit and a store per operation (target 1.2×), measured in
/// alternating rounds.
func runEncryptionBenchmarks(table: BenchmarkTable) async throws {
    let operations = 500
    let perOperation = 1e6 / Double(operations)
    let scratch = try makeScratchDirectory("encryption")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let keys = try KeyRing(
        namingKey: try KeyRing.generateKey(id: "naming"), keys: [try KeyRing.generateKey(id: "bench")],
        currentID: "bench")
    let entry = backendBenchmarkEntry()
    let cacheKeys = backendBenchmarkKeys(operations)
    let pairs: [(name: String, plain: any CacheBackend, storage: any CacheBackend)] = [
        (
            "DiskCache", try DiskCache(directory: scratch.appendingPathComponent("plain-disk"), sizeLimit: 256 << 20),
            try DiskCache(directory: scratch.appendingPathComponent("sealed-disk"), sizeLimit: 256 << 20)
        ),
        (
            "SQLiteBackend",
            try SQLiteBackend(path: scratch.appendingPathComponent("plain.sqlite"), sizeLimit: 256 << 20),
            try SQLiteBackend(path: scratch.appendingPathComponent("sealed.sqlite"), sizeLimit: 256 << 20)
        ),
    ]
    for (name, plain, storage) in pairs {
        let encrypted = EncryptedBackend(wrapping: storage, keys: keys)
        for key in cacheKeys {
            try await plain.store(entry, forKey: key)
            try await encrypted.store(entry, forKey: key)
        }
        let hits = try await alternatingMediansAsync(
            { for key in cacheKeys { blackHole(try await encrypted.entry(forKey: key)) } },
            { for key in cacheKeys { blackHole(try await plain.entry(forKey: key)) } })
        table.add(
            "Encrypted \(name) hit, 16 KiB entry", unit: "µs", median: hits[0] * perOperation,
            baseline: "\(name) hit, unencrypted", baselineMedian: hits[1] * perOperation, target: 1.2)
        let stores = try await alternatingMediansAsync(
            repetitions: 5,
            { for key in cacheKeys { try await encrypted.store(entry, forKey: key) } },
            { for key in cacheKeys { try await plain.store(entry, forKey: key) } })
        table.add(
            "Encrypted \(name) store, 16 KiB entry", unit: "µs", median: stores[0] * perOperation,
            baseline: "\(name) store, unencrypted", baselineMedian: stores[1] * perOperation, target: 1.2)
    }
}
