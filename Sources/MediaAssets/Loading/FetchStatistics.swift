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
    package init() {}

    public var description: String {
        "origin requests \(originRequests), refusals \(refusals), joins \(joins), retries \(retries), "
            + "304s \(revalidations), downloaded \(bytesDownloaded) B, served from cache \(bytesServedFromCache) B, "
            + "failures \(failures), cancellations \(cancellations), stale served \(staleServed), "
            + "background revalidations \(backgroundRevalidations), store failures \(storeFailures), "
            + "abandoned downloads dropped \(abandonedDownloadsDropped)"
    }
}
