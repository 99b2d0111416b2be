import Foundation
import TestSupport
import Testing

@testable import MediaAssets

@Suite("DiskCache in a read-only directory", .enabled(if: ImmutableFlag.isAvailable, ImmutableFlag.requirement))
struct DiskCacheReadOnlyTests {
    /// The sizes of the entry files in `directory`, as the disk has them.
    private func onDisk(_ directory: URL) throws -> (count: Int, bytes: Int) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".lock" }
        let bytes = try names.reduce(0) { total, name in
            let path = directory.appendingPathComponent(name).path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
        return (names.count, bytes)
    }

    @Test func failedRemovesLeaveIndexAndDiskInAgreement() async throws {
        // Given three entries in a directory that then turns read-only
        let scratch = try TemporaryDirectory()
        let directory = scratch.appending("cache")
        defer {
            try? ImmutableFlag.set(directory, immutable: false)
            scratch.remove()
        }
        let cache = try DiskCache(directory: directory)
        for key in ["a", "movie#0", "movie#1"] {
            try await cache.store(CacheEntry(data: Data(key.utf8)), forKey: CacheKey(key))
        }
        try ImmutableFlag.set(directory, immutable: true)

        // When removing one entry, and then a prefix, fails
        await #expect(throws: AssetsError.self) { try await cache.removeEntry(forKey: "a") }
        await #expect(throws: AssetsError.self) { try await cache.removeEntries(.keyPrefix("movie#")) }

        // Then every entry is still readable and counted, and the index agrees with the disk
        for key in ["a", "movie#0", "movie#1"] {
            #expect(try await cache.entry(forKey: CacheKey(key))?.data == Data(key.utf8), "\(key) readable")
        }
        let statistics = await cache.statistics()
        let disk = try onDisk(directory)
        #expect(statistics.count == 3 && statistics.count == disk.count)
        #expect(statistics.bytes == disk.bytes)

        // And once writable again, the remove succeeds and both agree on its absence
        try ImmutableFlag.set(directory, immutable: false)
        try await cache.removeEntry(forKey: "a")
        #expect(try await cache.entry(forKey: "a") == nil)
        let remaining = try onDisk(directory).count
        #expect(await cache.statistics().count == 2 && remaining == 2)
        await cache.close()
    }
}
