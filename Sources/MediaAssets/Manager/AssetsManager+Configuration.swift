import Foundation

extension AssetsManager {
    /// How a manager is set up: its memory partitions and its disk cache.
    public struct Configuration: Sendable {
        /// The memory partitions to create, with their limits. `.lru(t)` for a type not listed here
        /// is unregistered until an app registers a backend for it.
        public var memoryPartitions: [LRUCacheType: MemoryCache.Limits]
        /// The `DiskCache` opened for `.disk` (and so for `.hybrid(t)`): its directory, size limit and pinned
        /// quota; `nil` opens none.
        public var disk: DiskCache.Configuration?
        /// The clock the manager's backends and pipelines read for expiry and freshness: the one place a clock
        /// is injected (tests pass their own).
        public var now: @Sendable () -> Date
        /// The loader for fetches; `nil` means a `URLSessionLoader`.
        public var loader: (any DataLoading)?
        /// Which fetches may be made: schemes, hosts, the addresses a connection may reach (redirects included),
        /// redirects, downloads per host. ``FetchPolicy/app`` (any address) by default; a service that fetches
        /// URLs its users give wants ``FetchPolicy/service``.
        public var fetchPolicy: FetchPolicy
        /// Derives a request's cache key from its URL.
        public var keyFactory: CacheKeyFactory
        /// When to retry failed fetches.
        public var retryPolicy: RetryPolicy
        /// The most bytes one response may have (larger ones fail, nothing is stored).
        public var maxResponseSize: Int
        /// How long a response without `Cache-Control: max-age` or `Expires` stays fresh, in seconds.
        public var defaultTimeToLive: TimeInterval
        /// RFC 5861: how long after it goes stale an entry is still served at once while it is
        /// revalidated in the background, when the response does not say (`stale-while-revalidate`).
        /// 0, the default, revalidates before use.
        public var staleWhileRevalidate: TimeInterval
        /// RFC 5861: how long after it goes stale an entry is still served when the origin fails or
        /// cannot be reached, when the response does not say (`stale-if-error`). `.infinity` is an
        /// offline policy: whatever is cached is served when the network is down. 0 by default.
        public var staleIfError: TimeInterval
        /// How many downloads, decodes and processing steps run at once.
        public var stageLimits: StageLimits
        /// Where decoding, processing and encoding run: threads of the manager's own (one per core by
        /// default), never Swift's cooperative pool.
        public var executor: Executor
        /// The most bytes of results held in memory until their backend has them (staged writes). A result
        /// that would pass it waits for earlier writes to finish before it is staged: a burst against a slow
        /// disk is held back instead of holding every download. 16 MiB by default; an entry larger than the
        /// limit is staged alone.
        public var stagedWriteLimit: Int

        /// The defaults: images 128 MiB / 2,000 entries, Lottie 32 MiB / 500, video 64 MiB / 256,
        /// a 512 MiB disk cache in the platform caches directory, a URLSession loader under the app fetch
        /// policy, 3 attempts per fetch, responses up to 256 MiB, 7 days of freshness without `max-age` or
        /// `Expires`, CPU work on one thread per core, and at most 16 MiB of staged writes.
        public init(
            memoryPartitions: [LRUCacheType: MemoryCache.Limits] = Configuration.defaultPartitions,
            disk: DiskCache.Configuration? = DiskCache.Configuration(directory: DiskCache.defaultDirectory()),
            now: @escaping @Sendable () -> Date = Date.init,
            loader: (any DataLoading)? = nil,
            fetchPolicy: FetchPolicy = .app,
            keyFactory: CacheKeyFactory = .absoluteURL,
            retryPolicy: RetryPolicy = RetryPolicy(),
            maxResponseSize: Int = 256 << 20,
            defaultTimeToLive: TimeInterval = 7 * 24 * 3_600,
            staleWhileRevalidate: TimeInterval = 0,
            staleIfError: TimeInterval = 0,
            stageLimits: StageLimits = StageLimits(),
            executor: Executor = .threads(ProcessInfo.processInfo.activeProcessorCount),
            stagedWriteLimit: Int = 16 << 20
        ) {
            self.memoryPartitions = memoryPartitions
            self.disk = disk
            self.now = now
            self.loader = loader
            self.fetchPolicy = fetchPolicy
            self.keyFactory = keyFactory
            self.retryPolicy = retryPolicy
            self.maxResponseSize = maxResponseSize
            self.defaultTimeToLive = defaultTimeToLive
            self.staleWhileRevalidate = staleWhileRevalidate
            self.staleIfError = staleIfError
            self.stageLimits = stageLimits
            self.executor = executor
            self.stagedWriteLimit = max(0, stagedWriteLimit)
        }

        /// The freshness rules responses are stored with.
        var freshnessPolicy: FreshnessPolicy {
            FreshnessPolicy(
                defaultTimeToLive: defaultTimeToLive, staleWhileRevalidate: staleWhileRevalidate,
                staleIfError: staleIfError
            )
        }

        /// How many operations of each pipeline stage run at once; more wait, highest priority first.
        ///
        /// Bounding the stages bounds a burst's memory: without it, 10,000 asks decode 1,000 images at
        /// once and hold every full-size bitmap together.
        public struct StageLimits: Sendable, Hashable {
            /// Downloads at once.
            public var fetches: Int
            /// Decodes at once.
            public var decodes: Int
            /// Processing steps (styling, rendering, encoding variants) at once.
            public var processes: Int
            /// Variants being made at once, each from the fetch of its original to the write of its bytes: what
            /// waits between the stages (an original's bytes, its decoded bitmap) is held by at most this many.
            /// Without it, decodes outrun processing in a burst and their bitmaps pile up before the process
            /// stage.
            public var variants: Int

            /// The defaults: 8 downloads, one decode and one processing step per processor core, and as many
            /// variants under way as downloads and processing steps together.
            public init(
                fetches: Int = 8,
                decodes: Int = ProcessInfo.processInfo.activeProcessorCount,
                processes: Int = ProcessInfo.processInfo.activeProcessorCount,
                variants: Int? = nil
            ) {
                self.fetches = max(1, fetches)
                self.decodes = max(1, decodes)
                self.processes = max(1, processes)
                self.variants = max(1, variants ?? self.fetches + self.processes)
            }
        }

        /// Where a manager runs CPU work: decoding, resampling, styling and encoding.
        ///
        /// The stage limiters (`StageLimits`) bound how many of those run at once, in priority order, and so
        /// bound the memory they hold; the executor bounds the threads they run on.
        public enum Executor: Sendable {
            /// A `ThreadPoolExecutor` of this many threads (at least 1) that the manager owns, running
            /// `niceness` below the process's scheduling priority (default 10: a thread that waits briefly, such
            /// as a request handler or the cooperative pool, runs ahead of a decode as soon as it wakes).
            case threads(Int, niceness: Int32 = 10)
            /// Any executor of yours (a pool shared by several managers, an event loop group's), kept alive
            /// by the manager.
            case custom(any TaskExecutor)
        }

        /// The default memory partitions.
        public static let defaultPartitions: [LRUCacheType: MemoryCache.Limits] = [
            .image: MemoryCache.Limits(costLimit: 128 << 20, countLimit: 2_000),
            .lottie: MemoryCache.Limits(costLimit: 32 << 20, countLimit: 500),
            .video: MemoryCache.Limits(costLimit: 64 << 20, countLimit: 256),
        ]
    }
}
