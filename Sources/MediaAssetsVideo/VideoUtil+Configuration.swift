import MediaAssets

extension VideoUtil {
    /// How a `VideoUtil` cuts and stores videos.
    public struct Configuration: Sendable {
        /// The size of every chunk but the last, in bytes; values below 1 count as 1.
        public var chunkSize: Int
        /// Where chunks and meta records are stored.
        public var storageType: StorageType
        /// Resources larger than this many bytes play through uncached.
        ///
        /// `nil` takes the `byteLimit` of the backend for `storageType` (a `DiskCache`'s size limit,
        /// a `MemoryCache`'s cost limit, a `TieredBackend`'s slowest tier, whatever a custom backend
        /// declares); a backend without one counts as unlimited.
        /// Set it explicitly to cache resources that must stream through a smaller cache (evicting
        /// as they go).
        public var maxCachedResourceSize: Int?
        /// How many bytes one read step looks up and fetches at once (at least 4 chunks): a stream
        /// holds at most two windows for a slow consumer, and a longer missing run takes one request
        /// per window.
        public var windowSize: Int

        /// Creates a configuration: 1 MiB chunks on disk, the budget derived from the backend.
        public init(
            chunkSize: Int = 1 << 20, storageType: StorageType = .disk, maxCachedResourceSize: Int? = nil,
            windowSize: Int = 8 << 20
        ) {
            self.chunkSize = chunkSize
            self.windowSize = windowSize
            self.storageType = storageType
            self.maxCachedResourceSize = maxCachedResourceSize
        }
    }
}
