import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// The pass at open: the cache serves at once while its index is built in the background, and at the
/// pass's end the index agrees with the directory, whatever happened meanwhile or while it was closed.
@Suite("DiskCache index pass at open")
struct DiskCacheIndexPassTests {
    /// Holds the pass between listing the directory and reconciling the index with it.
    final class PassHold: Sendable {
        private let reached = Mutex(false)
        private let released = DispatchSemaphore(value: 0)

        var isHeld: Bool { reached.withLock { $0 } }

        /// For `Configuration.indexPassWillReconcile`: runs on the pass's thread, never the pool.
        var hook: @Sendable () -> Void {
            { [self] in
                reached.withLock { $0 = true }
                released.wait()
            }
        }

        func release() { released.signal() }
    }

    /// The entry files in `directory` and their total size, as the disk has them.
    static func filesOnDisk(_ directory: URL) throws -> (count: Int, bytes: Int) {
        var total = (count: 0, bytes: 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.count == 32 {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            total.count += 1
            total.bytes += (attributes[.size] as? Int) ?? 0
        }
        return total
    }

    /// Releases the cache's lock as the kernel does for a killed process: no close, no snapshot, no mark.
    static func crash(_ cache: DiskCache) {
        cache.lockDescriptor.withLock { descriptor in
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    static func value(_ index: Int) -> Data { Data(repeating: UInt8(truncatingIfNeeded: index), count: 10 * index + 1) }

    static func expectIndexAgreesWithTheDisk(
        _ cache: DiskCache, _ directory: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let statistics = await cache.statistics()
        let disk = try filesOnDisk(directory)
        #expect(
            statistics.count == disk.count && statistics.bytes == disk.bytes, "index \(statistics), disk \(disk)",
            sourceLocation: sourceLocation)
    }

    @Test func opensAtOnceServesWhileThePassRunsAndAgreesWithTheDiskAtItsEnd() async throws {
        // Given 40 entries written by a cache that then died without closing
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writer = try DiskCache(directory: directory.url)
        for index in 0..<40 { try await writer.store(CacheEntry(data: Self.value(index)), forKey: "k\(index)") }
        Self.crash(writer)

        // When the directory opens again, its pass held between listing the files and indexing them
        let hold = PassHold()
        var configuration = DiskCache.Configuration(directory: directory.url)
        configuration.indexPassWillReconcile = hold.hook
        let cache = try DiskCache(configuration: configuration)
        try await waitUntil("the pass to list the directory") { hold.isHeld }
        #expect(!cache.isIndexed)

        // Then it serves meanwhile: a file not indexed yet is read, an absent key misses
        #expect(try await cache.entry(forKey: "k3")?.data == Self.value(3))
        #expect(try await cache.entry(forKey: "absent") == nil)
        // And stores, replacements, removals and metadata updates made meanwhile hold when the pass ends
        for index in 0..<5 { try await cache.store(CacheEntry(data: Self.value(100 + index)), forKey: "new\(index)") }
        try await cache.removeEntry(forKey: "k5")
        try await cache.removeEntry(forKey: "k6")
        try await cache.removeEntry(forKey: "new4")
        try await cache.store(CacheEntry(data: Data("replaced".utf8)), forKey: "k7")
        #expect(try await cache.updateMetadata(CacheMetadata(etag: "\"v2\""), forKey: "k8"))
        #expect(!cache.isIndexed)
        hold.release()
        await cache.waitUntilIndexed()

        #expect(cache.isIndexed)
        try await Self.expectIndexAgreesWithTheDisk(cache, directory.url)
        #expect(await cache.statistics().count == 40 - 2 + 4)
        for index in 0..<40 where ![5, 6, 7, 8].contains(index) {
            #expect(try await cache.entry(forKey: "k\(index)")?.data == Self.value(index), "k\(index)")
        }
        #expect(try await cache.entry(forKey: "k5") == nil)
        #expect(try await cache.entry(forKey: "k6") == nil)
        #expect(try await cache.entry(forKey: "k7")?.data == Data("replaced".utf8))
        let updated = try #require(try await cache.entry(forKey: "k8"))
        #expect(updated.data == Self.value(8) && updated.metadata.etag == "\"v2\"")
        for index in 0..<4 { #expect(try await cache.entry(forKey: "new\(index)")?.data == Self.value(100 + index)) }
        #expect(try await cache.entry(forKey: "new4") == nil)
        await cache.checkInvariants()
        await cache.close()
    }

    @Test func aSweepAtTheEndOfThePassKeepsTheLimitAndWholeCacheOperationsWaitForIt() async throws {
        // Given 30 entries of 1,000 bytes, reopened after a crash with a limit of about 20 of them
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writer = try DiskCache(directory: directory.url)
        for index in 0..<30 {
            try await writer.store(CacheEntry(data: Data(repeating: 1, count: 1_000)), forKey: "k\(index)")
        }
        Self.crash(writer)
        let hold = PassHold()
        var configuration = DiskCache.Configuration(directory: directory.url, sizeLimit: 20 * 1_400)
        configuration.indexPassWillReconcile = hold.hook
        let cache = try DiskCache(configuration: configuration)
        try await waitUntil("the pass to list the directory") { hold.isHeld }

        // When statistics are asked for while the pass is held
        let asked = SharedCount()
        let statistics = Task {
            let statistics = await cache.statistics()
            asked.add()
            return statistics
        }

        // Then they wait for it, and after it the files are within the limit and agree with the index
        try await waitUntil("statistics to wait for the pass") { cache.indexed.waiterCount == 1 }
        #expect(asked.value == 0)
        hold.release()
        let counted = await statistics.value
        #expect(counted.bytes <= 20 * 1_400 && counted.evictions > 0, "\(counted)")
        try await Self.expectIndexAgreesWithTheDisk(cache, directory.url)
        await cache.checkInvariants()
        await cache.close()
    }

    @Test(.enabled(if: HelperProcess.isBuilt("cache-writer"), HelperProcess.cacheWriterRequirement))
    func afterAKillTheIndexAgreesWithTheDiskIncludingWhatChangedDuringThePass() async throws {
        // Given a process storing and removing entries as fast as it can, killed with SIGKILL mid-way
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("cache").path
        let limit = 64 << 20
        let process = try SpawnedProcess(
            HelperProcess.binDirectory.appendingPathComponent("cache-writer"),
            [
                "write", "--backend", "disk", "--path", path, "--writer", "0", "--keys", "200", "--size-limit",
                "\(limit)", "--remove-every", "7",
            ])
        let exit = process.exit
        let acknowledgements = path + ".ack-0"
        try await waitUntil("the writer to acknowledge 600 stores") {
            let text = (try? String(contentsOfFile: acknowledgements, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").count >= 600 || exit.hasExited
        }
        #expect(!exit.hasExited, "the writer ran until killed")
        kill(process.processIdentifier, SIGKILL)
        _ = await exit.status(within: .seconds(60))

        // When the cache opens, and while its pass is held, entries are stored and the writer's removed
        let hold = PassHold()
        var configuration = DiskCache.Configuration(directory: URL(fileURLWithPath: path), sizeLimit: limit)
        configuration.indexPassWillReconcile = hold.hook
        let cache = try DiskCache(configuration: configuration)
        try await waitUntil("the pass to list the directory") { hold.isHeld }
        for index in 0..<20 { try await cache.store(CacheEntry(data: Self.value(index)), forKey: "mine\(index)") }
        for index in stride(from: 1, to: 200, by: 9) { try await cache.removeEntry(forKey: "w0-k\(index)") }
        hold.release()
        await cache.waitUntilIndexed()

        // Then the index agrees with the files, and what was stored meanwhile reads back
        try await Self.expectIndexAgreesWithTheDisk(cache, URL(fileURLWithPath: path))
        for index in 0..<20 { #expect(try await cache.entry(forKey: "mine\(index)")?.data == Self.value(index)) }
        await cache.checkInvariants()
        await cache.close()

        // And every key the writer acknowledged is absent or holds a whole value, never a wrong or stale one
        let verified = try await HelperProcess.run(
            "cache-writer",
            [
                "verify", "--backend", "disk", "--path", path, "--writers", "1", "--keys", "200", "--size-limit",
                "\(limit)",
            ])
        #expect(verified.status == 0, "\(verified.output)")
    }

    /// How a closed cache's directory changed before it reopened.
    enum Change: String, CaseIterable, Sendable {
        case truncated, appended, replacedInPlace, strayFile, olderSnapshotCopiedOver
    }

    @Test(arguments: Change.allCases)
    func changesWhileClosedAreFoundEvenWithTheirTimesSetBack(_ change: Change) async throws {
        // Given a cache of six entries (e3 expiring in a minute) closed cleanly, so that a snapshot and the
        // lock file's mark vouch for its index
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let configuration = DiskCache.Configuration.tuned(
            directory: directory.url, sizeLimit: 1 << 20, now: clock.now, indexSnapshotMinimumCount: 1)
        var cache = try DiskCache(configuration: configuration)
        for index in 0..<6 {
            let metadata = CacheMetadata(expires: index == 3 ? clock.date + 60 : nil)
            try await cache.store(CacheEntry(data: Self.value(index), metadata: metadata), forKey: "e\(index)")
        }
        await cache.waitUntilIndexed()
        await cache.close()
        let snapshotURL = directory.url.appendingPathComponent(IndexSnapshot.fileName)
        let olderSnapshot = try Data(contentsOf: snapshotURL)
        var expected = (0..<6).map { (key: CacheKey("e\($0)"), data: Self.value($0) as Data?) }
        expected[3].data = nil  // expired by the time it is read (the clock moves on below)
        if change == .olderSnapshotCopiedOver {
            // (and more entries stored in a later session, whose snapshot the older one then replaces)
            cache = try DiskCache(configuration: configuration)
            for index in 6..<9 { try await cache.store(CacheEntry(data: Self.value(index)), forKey: "e\(index)") }
            await cache.waitUntilIndexed()
            await cache.close()
            expected += (6..<9).map { (key: CacheKey("e\($0)"), data: Self.value($0) as Data?) }
        }

        // When its directory changes while closed, every time set back as a sync or restore tool would
        let times = try TimesKeeper(directory.url)
        func file(_ key: CacheKey) -> URL { directory.url.appendingPathComponent(DiskCache.fileName(for: key)) }
        switch change {
        case .truncated:
            try times.keepingTimes(of: file("e1")) { try #require(truncate(file("e1").path, 40) == 0) }
            expected[1].data = nil
        case .appended:
            try times.keepingTimes(of: file("e2")) {
                let handle = try FileHandle(forWritingTo: file("e2"))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data([1, 2, 3]))
                try handle.close()
            }
            expected[2].data = nil
        case .replacedInPlace:
            // Another version of e3, of the same length, that never expires, written over the old bytes
            let data = Data(repeating: 0xEE, count: Self.value(3).count)
            let replacement = EntryFile.encodeHeader(key: "e3", entry: CacheEntry(data: data)) + Array(data)
            try times.keepingTimes(of: file("e3")) {
                let handle = try FileHandle(forWritingTo: file("e3"))
                try handle.write(contentsOf: Data(replacement))
                try handle.close()
            }
            #expect(try Data(contentsOf: file("e3")).count == replacement.count)
            expected[3].data = data
        case .strayFile:
            let data = Data("stray".utf8)
            let stray = EntryFile.encodeHeader(key: "stray", entry: CacheEntry(data: data)) + Array(data)
            try times.keepingTimes(of: file("stray")) { try Data(stray).write(to: file("stray")) }
            expected.append((key: "stray", data: data))
        case .olderSnapshotCopiedOver:
            try times.keepingTimes(of: snapshotURL) {
                let handle = try FileHandle(forWritingTo: snapshotURL)
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: olderSnapshot)
                try handle.close()
            }
        }
        try times.restoreDirectory()

        // Then once the pass at open has ended, the count and bytes agree with the files
        clock.advance(by: 120)
        cache = try DiskCache(configuration: configuration)
        await cache.waitUntilIndexed()
        try await Self.expectIndexAgreesWithTheDisk(cache, directory.url)
        // And no entry whose file is whole is hidden (a replaced one reads as what is there now, and its
        // old expiry no longer applies), a damaged one is a miss
        try await cache.removeExpired()
        for (key, data) in expected {
            #expect(try await cache.entry(forKey: key)?.data == data, "\(key)")
        }
        try await Self.expectIndexAgreesWithTheDisk(cache, directory.url)
        await cache.checkInvariants()
        await cache.close()
    }

    /// Sets a file's and the directory's access and modification times back to what they were.
    struct TimesKeeper {
        let directory: URL
        let directoryTimes: [timespec]

        init(_ directory: URL) throws {
            self.directory = directory
            directoryTimes = try Self.times(of: directory)
        }

        static func times(of url: URL) throws -> [timespec] {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return [] }
            return [info.st_atim, info.st_mtim]
        }

        /// Runs `change` on `url`, then sets the file's times back (a new file gets the directory's).
        func keepingTimes(of url: URL, _ change: () throws -> Void) throws {
            let before = try Self.times(of: url)
            try change()
            var times = before.isEmpty ? directoryTimes : before
            #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
        }

        func restoreDirectory() throws {
            var times = directoryTimes
            #expect(utimensat(AT_FDCWD, directory.path, &times, 0) == 0)
        }
    }
}
