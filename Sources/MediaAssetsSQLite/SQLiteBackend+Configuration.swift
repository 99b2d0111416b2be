import Foundation

extension SQLiteBackend {
    /// How a SQLite backend is set up.
    public struct Configuration: Sendable {
        /// The database file; created (mode 0600, with its directory) if missing.
        public var path: URL
        /// The most bytes of entry data the database keeps. Its files (database, WAL, shared memory
        /// and reserve) also stay within this, or within 1 MiB for smaller limits.
        public var sizeLimit: Int
        /// The fraction of `sizeLimit` a sweep evicts down to, so that sweeps are rare.
        public var lowWaterFraction: Double
        /// The number of reads whose last-access times are kept in memory before they are written
        /// in one transaction.
        public var accessTimeBatchSize: Int
        /// How long to wait for a lock another connection holds (another process's write) before
        /// failing with `SQLiteError.locked`.
        public var busyTimeout: Duration
        /// The clock for expiry; tests set their own. An app's backend reads the real time (the manager's clock
        /// is `AssetsManager.Configuration.now`).
        package var now: @Sendable () -> Date = Date.init
        /// The most bytes of entry data pinned entries may take, within `sizeLimit`. Opening with a
        /// lower quota than what is pinned keeps the pinned rows; pinned stores fail until they fit.
        public var pinnedQuota: Int
        /// The largest entry a read returns on the caller's thread: its row is read there, from the
        /// memory-mapped file, in microseconds, with no hand-off to another thread. Larger entries
        /// are read on the backend's read queue, so that copying them never holds a thread of
        /// Swift's cooperative pool for long; 0 reads every entry there (a miss, which copies
        /// nothing, is still answered on the caller's thread).
        public var largestInlineRead: Int
        /// How keys are placed in the table (see `SQLiteKeySlots`); tests force collisions with it.
        package var keyHash: SQLiteKeyHash = Configuration.defaultKeyHash

        /// Creates a configuration; the default limit is 512 MiB with a low-water mark at 80 %, the
        /// pinned quota a quarter of the limit (at most the limit), and entries up to 64 KiB read on
        /// the caller's thread.
        public init(
            path: URL,
            sizeLimit: Int = 512 << 20,
            lowWaterFraction: Double = 0.8,
            accessTimeBatchSize: Int = 256,
            busyTimeout: Duration = .seconds(2),
            pinnedQuota: Int? = nil,
            largestInlineRead: Int = 64 << 10
        ) {
            self.path = path
            self.sizeLimit = max(0, sizeLimit)
            self.lowWaterFraction = lowWaterFraction.isNaN ? 0.8 : min(1, max(0, lowWaterFraction))
            self.accessTimeBatchSize = max(1, accessTimeBatchSize)
            self.busyTimeout = max(.zero, busyTimeout)
            self.pinnedQuota = min(max(0, pinnedQuota ?? self.sizeLimit / 4), self.sizeLimit)
            self.largestInlineRead = max(0, largestInlineRead)
        }

        /// The total a sweep evicts down to.
        var lowWaterMark: Int {
            let fraction = lowWaterFraction.isNaN ? 0.8 : min(1, max(0, lowWaterFraction))
            let bytes = Double(max(0, sizeLimit)) * fraction
            // Double(Int.max) rounds up past Int.max, so compare before converting.
            return bytes < Double(Int.max) ? Int(bytes) : Int.max
        }
    }
}
