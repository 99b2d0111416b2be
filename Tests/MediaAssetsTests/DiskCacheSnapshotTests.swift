import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// The index snapshot a clean close saves: where the pass at open starts, when the lock file's mark
/// vouches for it; the pass still compares every record with its file.
@Suite("DiskCache index snapshot")
struct DiskCacheSnapshotTests {
    private func configuration(_ directory: URL) -> DiskCache.Configuration {
        DiskCache.Configuration.tuned(directory: directory, sizeLimit: 1 << 20, indexSnapshotMinimumCount: 1)
    }

    private func isFromSnapshot(_ cache: DiskCache) -> Bool {
        cache.state.withLock { $0.isFromSnapshot }
    }

    /// Stores entries "0"…"count-1" (entry i holds i + 1 bytes) and closes the cache cleanly.
    private func fillAndClose(_ directory: URL, count: Int = 5) async throws {
        let cache = try DiskCache(configuration: configuration(directory))
        for index in 0..<count {
            try await cache.store(CacheEntry(data: Data(repeating: UInt8(index), count: index + 1)), forKey: "\(index)")
        }
        _ = try await cache.entry(forKey: "0")  // the oldest write becomes the most recent use
        await cache.waitUntilIndexed()  // a close before the pass at open ends saves no snapshot
        await cache.close()
    }

    @Test func cleanCloseReopensFromTheSnapshotWithTheSameIndex() async throws {
        // Given a cache closed cleanly
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await fillAndClose(directory.url)
        let lock = directory.url.appendingPathComponent(".lock")
        let mark = try Data(contentsOf: lock)
        // The order a scan finds (the lock file's mark erased, as after a crash), then the mark put back
        try Data().write(to: lock)
        let scanned = try DiskCache(configuration: configuration(directory.url))
        await scanned.waitUntilIndexed()
        #expect(!isFromSnapshot(scanned))
        let scannedOrder = scanned.state.withLock { $0.records.namesByRecency }
        scanned.lockDescriptor.withLock { descriptor in
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
        try mark.write(to: lock)

        // When it reopens
        let cache = try DiskCache(configuration: configuration(directory.url))
        await cache.waitUntilIndexed()

        // Then the index comes from the snapshot, in the same order, and every entry reads back
        #expect(isFromSnapshot(cache))
        #expect(cache.state.withLock { $0.records.namesByRecency } == scannedOrder)
        #expect(scannedOrder.first == EntryName(key: "0"))
        let statistics = await cache.statistics()
        #expect(statistics.count == 5 && statistics.bytes > 0)
        for index in 0..<5 {
            #expect(try await cache.entry(forKey: "\(index)")?.data == Data(repeating: UInt8(index), count: index + 1))
        }
        await cache.checkInvariants()
    }

    @Test func anOpenThatEndsWithoutCloseLeavesNoSnapshotToTrust() async throws {
        // Given a cache that reopened from its snapshot, wrote an entry, then died without closing (the
        // lock released by hand, as the kernel does for a killed process)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await fillAndClose(directory.url)
        let crashed = try DiskCache(configuration: configuration(directory.url))
        await crashed.waitUntilIndexed()
        #expect(isFromSnapshot(crashed))
        try await crashed.store(CacheEntry(data: Data([7, 7])), forKey: "late")
        try await crashed.removeEntry(forKey: "1")
        crashed.lockDescriptor.withLock { descriptor in
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }

        // When the directory opens again
        let cache = try DiskCache(configuration: configuration(directory.url))
        await cache.waitUntilIndexed()

        // Then it scanned, and the index agrees with the disk
        #expect(!isFromSnapshot(cache))
        #expect(try await cache.entry(forKey: "late")?.data == Data([7, 7]))
        #expect(try await cache.entry(forKey: "1") == nil)
        #expect(await cache.statistics().count == 5)
    }

    @Test func aFileDeletedWhileClosedIsDroppedByThePassAtOpen() async throws {
        // Given a cache closed cleanly, then one of its files deleted by hand
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await fillAndClose(directory.url)
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent(DiskCache.fileName(for: "2")))

        // When it reopens
        let cache = try DiskCache(configuration: configuration(directory.url))
        await cache.waitUntilIndexed()

        // Then the pass started from the snapshot and dropped the record of the file that is gone
        #expect(isFromSnapshot(cache))
        #expect(await cache.statistics().count == 4)
        #expect(try await cache.entry(forKey: "2") == nil)
    }

    @Test func aDamagedSnapshotMakesOpenScan() async throws {
        // Given a cache closed cleanly whose snapshot then lost a byte in a record (same inode)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await fillAndClose(directory.url)
        let snapshot = directory.url.appendingPathComponent(IndexSnapshot.fileName).path
        let handle = try #require(FileHandle(forUpdatingAtPath: snapshot))
        try handle.seek(toOffset: UInt64(IndexSnapshot.headerLength + 17))
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()

        // When it reopens
        let cache = try DiskCache(configuration: configuration(directory.url))
        await cache.waitUntilIndexed()

        // Then it scanned and reads every entry
        #expect(!isFromSnapshot(cache))
        #expect(await cache.statistics().count == 5)
        #expect(try await cache.entry(forKey: "4")?.data.count == 5)
    }

    @Test func smallCachesSaveNoSnapshot() async throws {
        // Given a cache below the snapshot threshold, closed cleanly
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(configuration: .tuned(directory: directory.url, indexSnapshotMinimumCount: 10))
        try await cache.store(CacheEntry(data: Data([1])), forKey: "k")
        await cache.close()

        // Then the directory holds the lock file and the entry only
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names == [".lock", DiskCache.fileName(for: "k")].sorted())
    }

    @Test func tenThousandMutationsNeverCrashTheDecoder() {
        // Given a valid snapshot and a seeded generator
        var records = DiskRecords()
        for index in 0..<20 {
            let record = DiskRecords.Record(
                size: index, lastAccess: Date(timeIntervalSinceReferenceDate: Double(index)), expiry: .never,
                inode: UInt64(index), isVerified: false
            )
            records.set(record, for: EntryName(high: 1, low: UInt64(index)))
        }
        let valid = IndexSnapshot.encode(records)
        #expect((try? valid.withUnsafeBytes { try IndexSnapshot.decode($0) })?.count == 20)
        var generator = SeededGenerator(seed: 0x1DE7)
        var decoded = 0

        // When bytes are flipped, counts overwritten with extremes, and the file cut or extended
        for _ in 0..<10_000 {
            var bytes = valid
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
            case 1:
                let extreme: UInt64 = [0, 1, UInt64.max, UInt64(Int.max), 0x8000_0000].randomElement(using: &generator)!
                withUnsafeBytes(of: extreme.littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
            case 2:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
            default:
                bytes += (0..<Int.random(in: 1...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }

            // Then nothing crashes, and a damaged snapshot never decodes (the checksum covers it)
            fuzzIndexSnapshot(Data(bytes))
            if (try? bytes.withUnsafeBytes({ try IndexSnapshot.decode($0) })) != nil { decoded += 1 }
        }
        #expect(decoded == 0)
    }
}
