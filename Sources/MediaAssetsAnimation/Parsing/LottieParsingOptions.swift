/// Limits applied while parsing a Lottie animation, so hostile input fails fast with a typed error.
///
/// Every limit is checked before the work it guards: the input size before reading a byte, the
/// nesting depth at each opening bracket, the element counts as each element is met.
public struct LottieParsingOptions: Sendable, Hashable {
    /// The largest accepted input in bytes (default 64 MiB); larger input throws `inputTooLarge`.
    public var maximumInputSize: Int
    /// The deepest accepted nesting of arrays and objects (default 512); deeper throws `nestingTooDeep`.
    ///
    /// The reader is iterative, so any depth up to this limit is safe for the stack.
    public var maximumNestingDepth: Int
    /// The most layers accepted across all layer lists (default 100,000).
    public var maximumLayerCount: Int
    /// The most assets accepted (default 100,000).
    public var maximumAssetCount: Int
    /// The most markers accepted (default 100,000).
    public var maximumMarkerCount: Int

    /// Creates options; the defaults suit animations an app downloads.
    public init(
        maximumInputSize: Int = 64 * 1024 * 1024,
        maximumNestingDepth: Int = 512,
        maximumLayerCount: Int = 100_000,
        maximumAssetCount: Int = 100_000,
        maximumMarkerCount: Int = 100_000
    ) {
        self.maximumInputSize = maximumInputSize
        self.maximumNestingDepth = maximumNestingDepth
        self.maximumLayerCount = maximumLayerCount
        self.maximumAssetCount = maximumAssetCount
        self.maximumMarkerCount = maximumMarkerCount
    }
}

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
    /// The limits for parsing each animation: `read(_:options:parsing:)`'s, or the util's `parsingOptions`.
    package var parsing = LottieParsingOptions()

    /// Creates options; the defaults suit archives an app downloads.
    public init(
        maximumArchiveSize: Int = 128 * 1024 * 1024,
        maximumEntryCount: Int = 10_000,
        maximumTotalUncompressedSize: Int = 256 * 1024 * 1024,
        maximumCompressionRatio: Int = 200,
        compressionRatioFloor: Int = 1024 * 1024
    ) {
        self.maximumArchiveSize = maximumArchiveSize
        self.maximumEntryCount = maximumEntryCount
        self.maximumTotalUncompressedSize = maximumTotalUncompressedSize
        self.maximumCompressionRatio = maximumCompressionRatio
        self.compressionRatioFloor = compressionRatioFloor
    }
}
