/// Counters of the manager's fetching: each counts one kind of event, once, where it happens.
///
/// A fetch is one flight of the fetch stage: the asks for one key, storage type and cache policy at once share
/// it (`entry(for:…)`, `data(for:…)`, a prefetch of bytes, a pipeline's decode). `originRequests` and
/// `refusals` count attempts; `failures` and `cancellations` count fetches; `joins` counts asks.
public struct FetchStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Requests handed to the loader for the origin: each attempt (a retry counts again) and each revalidation,
    /// of fetches and of `load(_:progress:)` and `stream(_:)`. An attempt the fetch policy refused before any
    /// connection is counted in `refusals` instead; one refused at a redirect counts here, since its first hop
    /// reached the origin.
    public var originRequests = 0
    /// Attempts that `Configuration.fetchPolicy` refused before any connection was made (a scheme, host or
    /// address it does not allow): they never reached the origin and are not in `originRequests`.
    public var refusals = 0
    /// Joins of work already under way instead of starting it: an ask (or a flight, for all of its asks) that
    /// joined a fetch or a download of this manager, or a decode or render of an `AssetPipeline` over it (an
    /// `ImageUtil`'s, say). Each join counts once, in the flight joined; `PipelineStatistics.joins` counts the same
    /// events for one pipeline's asks, so over a manager whose asks all go through one pipeline the two are equal.
    public var joins = 0
    /// Attempts made again after a transient failure.
    public var retries = 0
    /// Revalidations the server answered with 304 (bytes kept).
    public var revalidations = 0
    /// Body bytes received from the origin, those of error answers (a 503's page) included.
    public var bytesDownloaded = 0
    /// Bytes returned from a cache without a download.
    public var bytesServedFromCache = 0
    /// Fetches that went to the network and ended in an error other than cancellation (a refusal, a status, a
    /// transport failure, a body that broke its limits), with no stale entry to serve instead.
    public var failures = 0
    /// Fetches that went to the network and ended because every ask waiting for them was cancelled.
    public var cancellations = 0
    /// Stale entries served under `stale-while-revalidate` or `stale-if-error`.
    public var staleServed = 0
    /// Background revalidations started for entries served stale.
    public var backgroundRevalidations = 0
    /// Background writes (results stored after they were returned) that failed.
    public var storeFailures = 0
    /// Downloads whose bytes arrived after every asker had left, not kept because staged writes had no room
    /// for them then (`Configuration.stagedWriteLimit`): the next ask for them downloads them again.
    public var abandonedDownloadsDropped = 0

    /// Creates zeroed counters.
    public init() {}

    public var description: String {
        "origin requests \(originRequests), refusals \(refusals), joins \(joins), retries \(retries), "
            + "304s \(revalidations), downloaded \(bytesDownloaded) B, served from cache \(bytesServedFromCache) B, "
            + "failures \(failures), cancellations \(cancellations), stale served \(staleServed), "
            + "background revalidations \(backgroundRevalidations), store failures \(storeFailures), "
            + "abandoned downloads dropped \(abandonedDownloadsDropped)"
    }
}

/// What the request pool coalesces on: the same key into the same storage.
struct FetchKey: Hashable, Sendable {
    var key: CacheKey
    var storageType: StorageType
    /// A `.reload` must not join a `.useCache` flight, which may answer from the cache.
    var cachePolicy: AssetRequest.CachePolicy
}

/// What download flights coalesce on: what is fetched, whatever storage each asker reads and writes.
struct DownloadKey: Hashable, Sendable {
    var key: CacheKey
    /// The validators of a conditional GET: a 304 answers only an asker that holds those bytes.
    var etag: String?
    var lastModified: String?
}

/// How one ask follows its fetch: progress reports, and whether a download it starts streams its body so
/// that those reports carry the pieces.
struct FetchTracking: Sendable {
    var progress: (@Sendable (FetchProgress) -> Void)?
    var receivesBodyPieces = false
    /// What becomes of a download staged unvalidated once no asker waits for it (every asker left after its
    /// bytes arrived): the pipeline validates it in the background, then commits or discards it. Without it (the
    /// manager's byte fetches, which store what they download unvalidated) the staging is committed.
    var keepAbandoned: (@Sendable (PendingWrites.Token, CacheEntry) -> Void)?

    static let none = FetchTracking()

    /// The same wishes, reported through a flight's `report` to every asker of the flight.
    func forwarding(to report: @escaping @Sendable (FetchProgress) -> Void) -> FetchTracking {
        FetchTracking(progress: report, receivesBodyPieces: receivesBodyPieces, keepAbandoned: keepAbandoned)
    }
}

/// What the fetch stage found: the entry, where it came from, and its staged write, if any.
struct FetchedOriginal: Sendable {
    var key: CacheKey
    var entry: CacheEntry
    var source: AssetSource
    /// A download staged unvalidated: commit it once it decoded, or discard it.
    var staged: PendingWrites.Token?
    /// Bytes read back from a staging that still waits for its decode (another flight's download, or one kept
    /// after its askers left): the pipeline commits it once they decode.
    var awaitingValidation: PendingWrites.Token?
    /// Served stale under `stale-while-revalidate`: the caller starts one background revalidation.
    var revalidatesInBackground = false
}
