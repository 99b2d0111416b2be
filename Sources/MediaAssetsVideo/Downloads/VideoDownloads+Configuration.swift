import Foundation

extension VideoDownloads {
    /// Where downloads live and how they run.
    public struct Configuration: Sendable {
        /// The directory of the downloads (created; one process at a time).
        public var directory: URL
        /// The most bytes all downloads together may take; past it a download fails with
        /// `VideoDownloadError.quotaExceeded`. `nil`: no quota.
        public var quota: Int?
        /// Downloads fetching at once; the others wait, queued.
        public var maximumParallelDownloads: Int
        /// Segments, keys and init sections of one HLS download fetched at once.
        public var maximumParallelSegments: Int
        /// The bytes of a progressive download asked with one `Range` request: what one answer can hold in
        /// memory before it is written, and how much a dropped connection costs.
        public var rangeSize: Int
        /// Attempts in a row that may fail without any progress before a download fails (each resumes where
        /// the last stopped).
        public var maximumAttempts: Int
        /// Holds every queued download (also those a previous run left) until `resumeAll()`: for a caller
        /// that refreshes URLs or tokens with `enqueue` first.
        public var startsPaused: Bool

        /// Creates a configuration: no quota, 2 downloads and 8 segments at once, 16 MiB ranges, 5 attempts,
        /// queued downloads starting at once.
        public init(
            directory: URL, quota: Int? = nil, maximumParallelDownloads: Int = 2, maximumParallelSegments: Int = 8,
            rangeSize: Int = 16 << 20, maximumAttempts: Int = 5, startsPaused: Bool = false
        ) {
            self.startsPaused = startsPaused
            self.directory = directory
            self.quota = quota
            self.maximumParallelDownloads = maximumParallelDownloads
            self.maximumParallelSegments = maximumParallelSegments
            self.rangeSize = rangeSize
            self.maximumAttempts = maximumAttempts
        }
    }
}
