import Foundation
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

@Suite("DiskCache reads")
struct DiskCacheReadAccessTimeTests {
    @Test func smallFilesInMemoryAreReadInlineAndOthersOnTheIOThreads() async throws {
        // Given the same entry in a cache with inline reads (the default) and in one without
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inline = try DiskCache(directory: directory.appending("inline"))
        let offPool = try DiskCache(configuration: .tuned(directory: directory.appending("off"), inlineReadLimit: 0))
        let data = testBytes(count: 16 << 10, seed: 4)
        for cache in [inline, offPool] {
            try await cache.store(CacheEntry(data: data), forKey: "k")
            _ = try await cache.entry(forKey: "k")
        }

        // When each is read 100 times
        let io = DiskCache.ioExecutor
        var before = io.executedJobCount
        for _ in 0..<100 { #expect(try await inline.entry(forKey: "k")?.data == data) }
        let inlineJobs = io.executedJobCount - before
        before = io.executedJobCount
        for _ in 0..<100 { #expect(try await offPool.entry(forKey: "k")?.data == data) }
        let offPoolJobs = io.executedJobCount - before

        // Then every read without inline reads ran on an I/O thread, and the inline reads did not (other
        // tests' reads may run there meanwhile: fewer than one a read is what this can tell)
        #expect(offPoolJobs >= 100, "\(offPoolJobs) jobs")
        #expect(inlineJobs < 100, "\(inlineJobs) jobs")
        await inline.close()
        await offPool.close()
    }

    @Test func aHitLeavesTheKernelsAccessTimeAlone() async throws {
        // Given an entry whose file's access time is older than its modification time (as after a batch
        // of the cache's own access times was saved), on a mount that updates access times then
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1, 2, 3])), forKey: "k")
        let path = directory.url.appendingPathComponent(DiskCache.fileName(for: "k")).path
        var times = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)

        // When the entry is read
        #expect(try await cache.entry(forKey: "k")?.data == Data([1, 2, 3]))

        // Then the file's access time is unchanged: the read dirtied no inode
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_atim.tv_sec == 1_000)
    }
}
