import Foundation
import TestSupport
import Testing

@testable import MediaAssets

@Suite("DiskCache pins")
struct DiskCachePinTests {
    static func entry(_ fill: UInt8, _ count: Int = 16 << 10) -> CacheEntry {
        CacheEntry(data: Data(repeating: fill, count: count))
    }

    @Test(arguments: [false, true])
    func pinsPersistAndSurviveTheSweepAtOpen(snapshot: Bool) async throws {
        // Given a pinned asset stored first, then unpinned entries, in a cache that is closed
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = DiskCache.Configuration.tuned(
            directory: directory.url, sizeLimit: 1 << 20, indexSnapshotMinimumCount: snapshot ? 1 : 100_000)
        let first = try DiskCache(configuration: configuration)
        try await first.pin(.asset("a"))
        for suffix in ["", "@1", "#0"] { try await first.store(Self.entry(1), forKey: CacheKey("a" + suffix)) }
        for index in 0..<20 { try await first.store(Self.entry(2), forKey: CacheKey("f\(index)")) }
        await first.close()

        // When it is opened again with a limit that holds a fifth of it
        var smaller = configuration
        smaller.sizeLimit = 200 << 10
        let second = try DiskCache(configuration: smaller)

        // Then the sweep at open evicted only unpinned files, and the pins are still there
        #expect(second.pins == [.asset("a")])
        for suffix in ["", "@1", "#0"] { #expect(try await second.entry(forKey: CacheKey("a" + suffix)) != nil) }
        let statistics = await second.statistics()
        #expect(statistics.pinnedCount == 3 && statistics.evictions > 0 && statistics.bytes <= 200 << 10)
        await second.checkInvariants()
    }

    @Test func thePinsFileIsSavedBeforeThePinnedEntry() async throws {
        // Given a pinned key whose pins file cannot be replaced (a directory blocks its temporary file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, sizeLimit: 1 << 20)
        try await cache.pin(.key("k"))
        let blocker = directory.url.appendingPathComponent(".pins.tmp")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)

        // When the entry is stored, the store fails and no entry file appears: after a crash at any
        // moment, a pinned file is never left unlisted
        await #expect(throws: AssetsError.self) { try await cache.store(Self.entry(1), forKey: "k") }
        #expect(try await cache.entry(forKey: "k") == nil)

        // And once the pins file can be written, the store succeeds and the entry is pinned
        try FileManager.default.removeItem(at: blocker)
        try await cache.store(Self.entry(1), forKey: "k")
        #expect(await cache.statistics().pinnedCount == 1)
        await cache.checkInvariants()
    }

    @Test func aDamagedPinsFileMeansNoPins() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try DiskCache(directory: directory.url)
        try await first.pin(.asset("a"))
        try await first.store(Self.entry(1), forKey: "a")
        await first.close()
        let pinsFile = directory.url.appendingPathComponent(".pins")
        var bytes = try Data(contentsOf: pinsFile)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: pinsFile)

        let second = try DiskCache(directory: directory.url)
        #expect(second.pins.isEmpty)
        #expect(try await second.entry(forKey: "a") != nil, "the entry itself is intact")
        #expect(await second.statistics().pinnedCount == 0)
    }
}
