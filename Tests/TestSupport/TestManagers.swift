import Foundation
import MediaAssets

extension AssetsManager {
    /// A manager for tests: its disk cache in `directory`, fast retries, and an optional test clock.
    public static func forTesting(
        directory: TemporaryDirectory,
        clock: TestClock? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05),
        maxResponseSize: Int = 256 << 20,
        memoryPartitions: [LRUCacheType: MemoryCache.Limits] = Configuration.defaultPartitions,
        diskSizeLimit: Int = 512 << 20,
        keyFactory: CacheKeyFactory = .absoluteURL,
        loader: (any DataLoading)? = nil,
        staleIfError: TimeInterval = 0
    ) throws -> AssetsManager {
        try AssetsManager(
            configuration: Configuration(
                memoryPartitions: memoryPartitions,
                diskDirectory: directory.appending("disk-cache"),
                diskSizeLimit: diskSizeLimit,
                now: clock?.now ?? Date.init,
                loader: loader,
                keyFactory: keyFactory,
                retryPolicy: retryPolicy,
                maxResponseSize: maxResponseSize,
                staleIfError: staleIfError
            ))
    }
}

/// Deterministic bytes for test resources: a seeded random word stream, written eight bytes at a
/// time so that megabytes cost milliseconds even in debug builds.
public func testBytes(count: Int, seed: UInt64 = 1) -> Data {
    var generator = SeededGenerator(seed: seed)
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
        let words = buffer.count / 8
        let wordBuffer = buffer.bindMemory(to: UInt64.self)
        for index in 0..<words { wordBuffer[index] = generator.next() }
        var tail = generator.next()
        for index in (words * 8)..<buffer.count {
            buffer[index] = UInt8(truncatingIfNeeded: tail)
            tail >>= 8
        }
    }
    return data
}
