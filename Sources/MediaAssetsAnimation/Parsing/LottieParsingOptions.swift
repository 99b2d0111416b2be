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
