import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend disk space")
struct SQLiteDiskSpaceTests {
    /// The bytes the cache occupies: the database file and its WAL and shared-memory files.
    static func occupiedBytes(_ url: URL) -> Int {
        ["", "-wal", "-shm"].reduce(0) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + suffix)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }

    @Test func filesStayWithinTheLimit() async throws {
        // Given a 2 MiB cache
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let limit = 2 << 20
        let backend = try file.open(sizeLimit: limit)
        var generator = SeededGenerator(seed: 17)
        var largest = 0

        // When 150 entries of 1 to 64 KiB are written over 60 keys (replacing and evicting)
        for round in 0..<150 {
            let size = Int.random(in: 1_024...(64 << 10), using: &generator)
            try await backend.store(CacheEntry(data: payload(round, count: size)), forKey: CacheKey("k\(round % 60)"))
            largest = max(largest, Self.occupiedBytes(file.url))
        }

        // Then the files never held more than the limit, and the entries still read back whole
        #expect(largest <= limit, "the database and its WAL reached \(largest) bytes")
        #expect(await backend.statistics().count > 10)
        #expect(await backend.statistics().evictions > 0)
        await backend.checkInvariants()
    }

    @Test(.enabled(if: ScratchFilesystem.isAvailable, ScratchFilesystem.requirement))
    func fullFilesystemStillRemovesAndRecovers() async throws {
        // Given a cache whose limit (64 MiB) is far above its 3 MiB filesystem, written to twice
        // what the filesystem holds
        let filesystem = try ScratchFilesystem(bytes: 3 << 20)
        defer { filesystem.remove() }
        let url = filesystem.appending("cache.sqlite")
        let backend = try SQLiteBackend(configuration: .init(path: url, sizeLimit: 64 << 20))
        for index in 0..<200 {
            try await backend.store(CacheEntry(data: payload(index, count: 32 << 10)), forKey: CacheKey("k\(index)"))
        }

        // Then every store succeeded by evicting: the filesystem, not the limit, was the bound
        let full = await backend.statistics()
        #expect(full.evictions > 0 && full.bytes < 3 << 20, "\(full)")
        #expect(filesystem.freeBytes() < 1 << 20)

        // When entries are removed on the full filesystem, then each removal succeeds
        let held = (0..<200).map { CacheKey("k\($0)") }
        var present: [CacheKey] = []
        for key in held where try await backend.entry(forKey: key) != nil { present.append(key) }
        for key in present.prefix(10) { try await backend.removeEntry(forKey: key) }
        try await backend.removeEntries(.keyPrefix("k39"))

        // And stores succeed again (in the freed pages, evicting the oldest if needed), and every
        // other entry reads back whole or is absent, never wrong
        for index in 0..<5 {
            let key = CacheKey("again-\(index)")
            try await backend.store(CacheEntry(data: payload(1_000 + index, count: 32 << 10)), forKey: key)
            #expect(try await backend.entry(forKey: key)?.data == payload(1_000 + index, count: 32 << 10))
        }
        var kept = 0
        for key in present.dropFirst(10) where !key.rawValue.hasPrefix("k39") {
            guard let data = try await backend.entry(forKey: key)?.data else { continue }
            #expect(data == payload(Int(key.rawValue.dropFirst())!, count: 32 << 10), "\(key)")
            kept += 1
        }
        #expect(kept > 10)
        await backend.checkInvariants()
        await backend.close()
    }
}
