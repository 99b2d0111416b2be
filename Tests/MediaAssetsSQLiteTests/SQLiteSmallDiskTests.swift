import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

/// A full disk too small (or too full) for the budgeted reserve file: the reserve shrinks to what
/// fits, down to what one delete needs, so removes still run and stores work again after them.
@Suite("SQLiteBackend on a small full disk", .enabled(if: ScratchFilesystem.isAvailable, ScratchFilesystem.requirement))
struct SQLiteSmallDiskTests {
    static func reserveSize(_ url: URL) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + "-reserve")
        return (attributes?[.size] as? Int) ?? 0
    }

    /// Fills `backend` with 32 KiB entries until the filesystem, not the limit, bounds it; returns the keys.
    static func fill(_ backend: SQLiteBackend, rounds: Int) async throws -> [CacheKey] {
        var keys: [CacheKey] = []
        for index in 0..<rounds {
            let key = CacheKey("k\(index)")
            try await backend.store(CacheEntry(data: payload(index, count: 32 << 10)), forKey: key)
            keys.append(key)
        }
        return keys
    }

    /// Removes five stored entries one by one, then stores five more; each must succeed.
    static func removeThenStore(_ backend: SQLiteBackend, keys: [CacheKey]) async throws {
        var present: [CacheKey] = []
        for key in keys where try await backend.entry(forKey: key) != nil { present.append(key) }
        #expect(present.count >= 5, "\(present.count) entries held")
        var removed = 0
        for key in present.prefix(5) {
            do {
                try await backend.removeEntry(forKey: key)
                removed += 1
            } catch {
                Issue.record("removing \(key) on the full filesystem failed: \(error)")
            }
            #expect(try await backend.entry(forKey: key) == nil)
        }
        #expect(removed == 5)
        for index in 0..<5 {
            let key = CacheKey("again-\(index)")
            try await backend.store(CacheEntry(data: payload(500 + index, count: 32 << 10)), forKey: key)
            #expect(try await backend.entry(forKey: key)?.data == payload(500 + index, count: 32 << 10))
        }
        await backend.checkInvariants()
    }

    @Test func oneMebibyteFilesystemKeepsASmallerReserveAndRecovers() async throws {
        // Given the default configuration (a 1 MiB reserve budgeted) on a 1 MiB filesystem
        let filesystem = try ScratchFilesystem(bytes: 1 << 20)
        defer { filesystem.remove() }
        let url = filesystem.appending("cache.sqlite")
        let backend = try SQLiteBackend(configuration: .init(path: url))

        // Then the full reserve could not exist at open, and a smaller one does
        let reserve = Self.reserveSize(url)
        #expect(reserve > 0 && reserve < 1 << 20, "reserve of \(reserve) bytes")

        // When it is filled until the filesystem is full
        let keys = try await Self.fill(backend, rounds: 60)
        #expect(await backend.statistics().evictions > 0)

        // Then every remove succeeds on the full filesystem, and stores work again after them
        try await Self.removeThenStore(backend, keys: keys)
        await backend.close()
    }

    @Test func nearlyFullFilesystemAtOpenStillRecovers() async throws {
        // Given a 4 MiB filesystem that other files have filled to its last MiB when the cache opens
        let filesystem = try ScratchFilesystem(bytes: 4 << 20)
        defer { filesystem.remove() }
        let blocker = filesystem.appending("other-app-data")
        let free = filesystem.freeBytes()
        try Data(count: free - (1 << 20)).write(to: blocker)
        let url = filesystem.appending("cache.sqlite")
        let backend = try SQLiteBackend(configuration: .init(path: url, sizeLimit: 64 << 20))
        #expect(Self.reserveSize(url) > 0)

        // When the cache fills what is left
        let keys = try await Self.fill(backend, rounds: 40)

        // Then removes and stores still succeed
        try await Self.removeThenStore(backend, keys: keys)
        await backend.close()
    }
}
