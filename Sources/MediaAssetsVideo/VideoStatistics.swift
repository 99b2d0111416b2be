/// Counters of a `VideoUtil` since it was created.
public struct VideoStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Bytes returned to readers from cached chunks.
    public var bytesServedFromCache = 0
    /// Bytes returned to readers from completed downloads (`VideoDownloads`).
    public var bytesServedFromDownloads = 0
    /// Body bytes received from the origin (probes, range fetches and full bodies).
    public var bytesFetched = 0
    /// Requests handed to the manager for the origin (each `load`, whatever the manager retried inside it). A request
    /// cancelled before it was sent (a stream abandoned as its next read-ahead started) is counted, though the
    /// origin never saw it.
    public var rangeRequests = 0
    /// Chunks written to the cache.
    public var chunksStored = 0
    /// Chunks this util stored that the backend no longer had when next read (evicted or removed).
    public var chunksEvicted = 0
    /// Reads that waited on a fetch another reader had started (a chunk run or a first request).
    public var fetchesJoined = 0
    /// The most bytes a stream held that its consumer had not taken yet (at most its read-ahead).
    public var streamBufferPeak = 0
    /// Times a resource was found changed at the origin and its chunks dropped.
    public var invalidations = 0
    /// Stills decoded by `frame(for:at:style:options:)` (memory and storage hits not counted).
    public var framesDecoded = 0
    /// Bytes the demuxer read for those stills, through the cache or the network.
    public var frameBytesRead = 0

    /// Creates zeroed counters.
    package init() {}

    public var description: String {
        "served from cache \(bytesServedFromCache) B, from downloads \(bytesServedFromDownloads) B, "
            + "fetched \(bytesFetched) B, range requests \(rangeRequests), "
            + "chunks stored \(chunksStored), chunks evicted \(chunksEvicted), joins \(fetchesJoined), "
            + "invalidations \(invalidations), stream buffer peak \(streamBufferPeak) B, "
            + "frames decoded \(framesDecoded), frame bytes read \(frameBytesRead) B"
    }
}

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
