import Foundation
import MediaAssets
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The executor every test manager shares unless its test names one of its own: as many threads as cores, at the
/// process's priority.
///
/// Swift Testing starts every test at once. With a pool per manager, thread dumps of a TSan run found 93 executor
/// threads, about 50 of them rendering at once and most of those waiting on a lock of the Swift runtime's type
/// metadata (which unspecialized code takes per loop step) while the cooperative pool's threads waited on the same
/// lock: waits of 90 s ran out in a dozen tests. An app has one manager; a process of hundreds of managers should
/// not have hundreds of decoding threads either. The threads keep the process's priority: 10 below it, as a
/// manager's own pool runs, the CPU hog that CI runs beside the suite would leave all of the suite's decoding a
/// tenth of the machine.
public let sharedTestExecutor: any TaskExecutor = ThreadPoolExecutor(
    threadCount: ProcessInfo.processInfo.activeProcessorCount, name: "Test executor")

extension AssetsManager {
    /// A manager for tests: its disk cache in `directory`, fast retries, and an optional test clock.
    ///
    /// Without a `loader`, it loads through `URLSessionLoader.forTesting(maxResponseSize:)`.
    public static func forTesting(
        directory: TemporaryDirectory,
        clock: TestClock? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05),
        maxResponseSize: Int = 256 << 20,
        memoryPartitions: [LRUCacheType: MemoryCache.Limits] = Configuration.defaultPartitions,
        diskSizeLimit: Int = 512 << 20,
        keyFactory: CacheKeyFactory = .absoluteURL,
        loader: (any DataLoading)? = nil,
        fetchPolicy: FetchPolicy = .app,
        staleIfError: TimeInterval = 0,
        stageLimits: Configuration.StageLimits = .init(),
        executor: Configuration.Executor = .custom(sharedTestExecutor),
        stagedWriteLimit: Int = 16 << 20
    ) throws -> AssetsManager {
        try AssetsManager(
            configuration: Configuration(
                memoryPartitions: memoryPartitions,
                disk: .init(directory: directory.appending("disk-cache"), sizeLimit: diskSizeLimit),
                now: clock?.now ?? Date.init,
                loader: loader ?? URLSessionLoader.forTesting(maxResponseSize: maxResponseSize),
                fetchPolicy: fetchPolicy,
                keyFactory: keyFactory,
                retryPolicy: retryPolicy,
                maxResponseSize: maxResponseSize,
                staleIfError: staleIfError,
                stageLimits: stageLimits,
                executor: executor,
                stagedWriteLimit: stagedWriteLimit
            ))
    }
}

extension URLSessionLoader {
    private static let testLoaders = Mutex<[Int: URLSessionLoader]>([:])

    /// A loader like the default one (one session per response limit, shared by every test manager), whose
    /// session waits ten minutes rather than one for bytes: a request held at a test origin's gate receives
    /// nothing until the test releases it, and under TSan a test's task can wait a long time for its turn.
    public static func forTesting(maxResponseSize: Int) -> URLSessionLoader {
        testLoaders.withLock { loaders in
            if let loader = loaders[maxResponseSize] { return loader }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 16
            configuration.timeoutIntervalForRequest = 600
            let loader = URLSessionLoader(configuration: configuration, maxResponseSize: maxResponseSize)
            loaders[maxResponseSize] = loader
            return loader
        }
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
