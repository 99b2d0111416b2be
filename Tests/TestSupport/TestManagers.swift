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
        loader: (any DataLoading)? = nil
    ) throws -> AssetsManager {
        try AssetsManager(configuration: Configuration(
            memoryPartitions: memoryPartitions,
            diskDirectory: directory.appending("disk-cache"),
            diskSizeLimit: diskSizeLimit,
            now: clock?.now ?? Date.init,
            loader: loader,
            keyFactory: keyFactory,
            retryPolicy: retryPolicy,
            maxResponseSize: maxResponseSize
        ))
    }
}

/// Deterministic bytes for test resources.
public func testBytes(count: Int, seed: UInt64 = 1) -> Data {
    var generator = SeededGenerator(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var index = 0
    while index < count {
        var word = generator.next()
        for _ in 0..<8 where index < count {
            bytes[index] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            index += 1
        }
    }
    return Data(bytes)
}
