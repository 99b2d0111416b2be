import Foundation
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

@Suite("DiskCache reads")
struct DiskCacheReadAccessTimeTests {
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
