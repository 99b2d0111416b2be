/// Counters of an `HLSUtil` since it was created.
public struct HLSStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Requests sent to the origin (playlists, segments, keys, init sections).
    public var originRequests = 0
    /// Body bytes received from the origin.
    public var bytesFetched = 0
    /// Bytes of segments, keys and init sections served from the cache.
    public var bytesServedFromCache = 0
    /// Bytes of segments, keys and init sections read from completed downloads.
    public var bytesServedFromDownloads = 0
    /// Segments, keys and init sections written to the cache.
    public var resourcesStored = 0
    /// Writes to the cache that failed (the bytes were still served).
    public var storeFailures = 0
    /// Asks that joined a fetch another reader had started.
    public var fetchesJoined = 0
    /// Files a download wrote (files already present from an interrupted download are not rewritten).
    public var filesDownloaded = 0

    /// Creates zeroed counters.
    package init() {}

    public var description: String {
        "origin requests \(originRequests), fetched \(bytesFetched) B, served from cache \(bytesServedFromCache) B, "
            + "from downloads \(bytesServedFromDownloads) B, "
            + "stored \(resourcesStored), store failures \(storeFailures), joins \(fetchesJoined), "
            + "files downloaded \(filesDownloaded)"
    }
}
