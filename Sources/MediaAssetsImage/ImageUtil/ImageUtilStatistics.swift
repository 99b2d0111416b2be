/// Counters of an `ImageUtil`'s still images (its `pipeline`, and avatars styled from an app's original), for
/// tests, logs and tuning.
///
/// Coalesced asks count once per shared piece of work: five concurrent asks for one cold styled variant make
/// one network fetch, one decode, one render and four `joins`. `joins`, `failures` and `cancellations` count
/// asks, as the pipeline's `PipelineStatistics` does; encoded answers (`encodedImage(for:…)`) count as hits
/// where their bytes were.
public struct ImageUtilStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Bytes decoded into bitmaps (originals and stored variants).
    public var decodes = 0
    /// Styles rendered from a decoded original (`.original` is never rendered).
    public var renders = 0
    /// Asks answered from memory with no decoding: a decoded image kept there (a style, or an original that a new
    /// style is rendered from: that render is in `renders`), or (encoded answers) a variant's bytes kept in the
    /// memory tier.
    public var memoryHits = 0
    /// Asks answered from storage (the disk for `.disk` and `.hybrid`) instead of the network: a variant or an
    /// original decoded, or (encoded answers) a stored variant's bytes sent as they are.
    public var storageHits = 0
    /// Encoded answers served as kept, without decoding: each is in `memoryHits` or `storageHits` too.
    public var encodedHits = 0
    /// Originals requested through the manager's fetch (it coalesces them into downloads and revalidates).
    public var networkFetches = 0
    /// Asks that ended in an error other than cancellation.
    public var failures = 0
    /// Asks that ended because they were cancelled (never in `failures`).
    public var cancellations = 0
    /// Asks that joined work another ask had started (a render, a decode, or the manager's fetch or download)
    /// instead of starting their own. The manager's `FetchStatistics.joins` counts the same events, so when this
    /// util's still images are the only asks through its manager (a list and its `ImagePrefetcher`) the two are
    /// equal.
    public var joins = 0
    /// Variants that could not be written to storage; the image was still returned.
    public var storeFailures = 0

    /// Creates zeroed counters.
    public init() {}

    /// The counters on one line, for logs.
    public var description: String {
        "decodes \(decodes), renders \(renders), memory hits \(memoryHits), storage hits \(storageHits), "
            + "encoded hits \(encodedHits), network fetches \(networkFetches), failures \(failures), "
            + "cancellations \(cancellations), joins \(joins), store failures \(storeFailures)"
    }
}
