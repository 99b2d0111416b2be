/// Limits applied while reading a dotLottie archive, so hostile archives fail fast with a typed error.
///
/// Sizes are checked from the central directory before anything is inflated, and inflation never
/// writes past an entry's declared size, so a lying entry cannot grow memory beyond the limits.
public struct DotLottieReadingOptions: Sendable, Hashable {
    /// The largest accepted archive in bytes (default 128 MiB).
    public var maximumArchiveSize: Int
    /// The most entries accepted in the central directory (default 10,000).
    public var maximumEntryCount: Int
    /// The most uncompressed bytes all entries may declare together (default 256 MiB).
    public var maximumTotalUncompressedSize: Int
    /// The highest declared uncompressed-to-compressed ratio accepted (default 200:1).
    ///
    /// Applied to entries declaring more than `compressionRatioFloor` bytes; smaller entries
    /// cannot be bombs worth refusing (the total limit still caps them).
    public var maximumCompressionRatio: Int
    /// Entries declaring at most this many uncompressed bytes skip the ratio check (default 1 MiB).
    public var compressionRatioFloor: Int
    /// The limits for parsing each animation.
    public var parsing: LottieParsingOptions

    /// Creates options; the defaults suit archives an app downloads.
    public init(
        maximumArchiveSize: Int = 128 * 1024 * 1024,
        maximumEntryCount: Int = 10_000,
        maximumTotalUncompressedSize: Int = 256 * 1024 * 1024,
        maximumCompressionRatio: Int = 200,
        compressionRatioFloor: Int = 1024 * 1024,
        parsing: LottieParsingOptions = .init()
    ) {
        self.maximumArchiveSize = maximumArchiveSize
        self.maximumEntryCount = maximumEntryCount
        self.maximumTotalUncompressedSize = maximumTotalUncompressedSize
        self.maximumCompressionRatio = maximumCompressionRatio
        self.compressionRatioFloor = compressionRatioFloor
        self.parsing = parsing
    }
}
