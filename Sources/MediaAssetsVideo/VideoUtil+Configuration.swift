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
        /// How many bytes one step of `data(for:range:)` and `prefetch(for:byteCount:)` looks up and
        /// fetches at once (at least 4 chunks): a longer missing run takes one request per window.
        public var windowSize: Int
        /// The most bytes a stream fetches beyond what its consumer has taken (rounded up to whole chunks;
        /// at least one chunk).
        ///
        /// A stream, and so the video proxy, fetches `readAhead` bytes of chunks from its consumer's position
        /// and starts the next ones only once the consumer has taken everything fetched before: a player
        /// that seeks, reads a frame and hangs up costs the bytes it read plus at most this much, and a slow
        /// consumer holds at most this much in memory. Raise it (to a few chunks) for
        /// steadier sequential reads over a long round trip; one request is made per `readAhead` bytes.
        public var readAhead: Int

        /// Creates a configuration: 1 MiB chunks on disk, the budget derived from the backend, 8 MiB windows
        /// for explicit ranges, and streams reading one chunk ahead.
        public init(
            chunkSize: Int = 1 << 20, storageType: StorageType = .disk, maxCachedResourceSize: Int? = nil,
            windowSize: Int = 8 << 20, readAhead: Int? = nil
        ) {
            self.chunkSize = chunkSize
            self.windowSize = windowSize
            self.readAhead = readAhead ?? chunkSize
            self.storageType = storageType
            self.maxCachedResourceSize = maxCachedResourceSize
        }
    }
}
