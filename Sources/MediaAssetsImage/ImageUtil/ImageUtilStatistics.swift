/// Counters of an `ImageUtil`'s work, for tests, logs and tuning.
///
/// Coalesced asks count once per shared piece of work: five concurrent asks for one styled
/// variant make one render and four `joins`.
public struct ImageUtilStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Bytes decoded into bitmaps (originals and stored variants).
    public var decodes = 0
    /// Styles rendered from a decoded original (`.original` is never rendered).
    public var renders = 0
    /// Asks answered by a decoded image kept in memory, with no decoding.
    public var memoryHits = 0
    /// A variant or an original found in storage (the disk for `.disk` and `.hybrid`) instead of the network.
    public var storageHits = 0
    /// Originals requested through the manager's fetch (it coalesces them into downloads and revalidates).
    public var networkFetches = 0
    /// Asks that ended in an error (cancellation not counted).
    public var failures = 0
    /// Asks that joined a render or decode already under way.
    public var joins = 0
    /// Variants that could not be written to storage; the image was still returned.
    public var storeFailures = 0

    /// Creates zeroed counters.
    public init() {}

    /// The counters on one line, for logs.
    public var description: String {
        "decodes \(decodes), renders \(renders), memory hits \(memoryHits), storage hits \(storageHits), "
            + "network fetches \(networkFetches), failures \(failures), joins \(joins), store failures \(storeFailures)"
    }
}
