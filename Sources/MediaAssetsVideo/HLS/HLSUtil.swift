import Foundation
import MediaAssets
import MediaAssetsImage
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Caches HLS streams: playlists, segments, init sections and keys, for players, prefetching and offline use.
///
/// Segments, init sections (`EXT-X-MAP`) and keys (`EXT-X-KEY`) are cached as delivered (never
/// decrypted) under keys from the manager's key factory (so token-stripped URLs share entries), with
/// `@bytes=a-b` appended for `EXT-X-BYTERANGE` parts; each is fetched once however many readers ask
/// at once (the package's `RequestPool`). A master playlist and a VOD media playlist (`EXT-X-ENDLIST`)
/// are cached too; a live media playlist is fetched anew each time and refreshed by
/// `playlistUpdates(for:)` once per target duration. Only what a playlist lists is cached. Given
/// `VideoDownloads`, completed downloads are read before the cache and the network.
///
/// ```swift
/// let hls = HLSUtil(manager: manager)
/// try await hls.prefetch(AssetRequest(url: streamURL), seconds: 10)        // instant start
/// let local = try await hls.download(AssetRequest(url: streamURL), to: dir) // offline copy
/// ```
public final class HLSUtil: Sendable {
    /// The manager entries are stored and fetched through.
    public let manager: AssetsManager
    /// Where segments, keys, init sections and playlists are stored.
    public let storageType: StorageType
    /// The downloads read before the cache and the network, if any.
    public let downloads: VideoDownloads?

    let sleep: @Sendable (Duration) async throws -> Void
    let fetches = RequestPool<CacheKey, Data>()
    let counters = Mutex(HLSStatistics())
    /// Stills being taken, by the key they are stored under, and how many are decoded at once.
    let framePool = RequestPool<CacheKey, Image>()
    let frameLimiter = WorkLimiter(limit: 2)

    /// Creates a util storing through `manager` in `storageType`.
    ///
    /// - Parameters:
    ///   - manager: fetches and stores everything.
    ///   - storageType: where segments, keys, init sections and playlists are stored.
    ///   - downloads: completed downloads, read before the cache and the network.
    ///   - sleep: how `playlistUpdates(for:)` waits between reloads (tests inject their own).
    public init(
        manager: AssetsManager, storageType: StorageType = .disk, downloads: VideoDownloads? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.manager = manager
        self.storageType = storageType
        self.downloads = downloads
        self.sleep = sleep
    }

    /// A snapshot of the counters.
    public var statistics: HLSStatistics {
        var statistics = counters.withLock { $0 }
        statistics.fetchesJoined = fetches.joinCount
        return statistics
    }

    /// The playlist `request` names: from the cache when it is a master or a VOD playlist cached before.
    ///
    /// - Throws: `HLSError.malformedPlaylist`, `AssetsError` for a failed fetch; `CancellationError`.
    public func playlist(for request: AssetRequest) async throws -> HLSPlaylist {
        try HLSPlaylist.parse(try await playlistData(for: request), url: request.url)
    }

    /// The text of the playlist `request` names: from a download, the cache (masters and VOD playlists), or
    /// the origin.
    func playlistData(for request: AssetRequest) async throws -> Data {
        let key = manager.cacheKey(for: request).variant("playlist")
        if let file = downloads?.downloadedPlaylist(forKey: manager.cacheKey(for: request)),
            let data = try? await Self.readOffPool(file)
        {
            return data
        }
        return try await fetches.value(for: key) { [self] _ in
            if let cached = try? await manager.readData(forKey: key, storageType: storageType) { return cached }
            let data = try await fetch(request, range: nil)
            if let playlist = try? HLSPlaylist.parse(data, url: request.url), Self.isFinal(playlist) {
                try? await manager.writeData(data, forKey: key, storageType: storageType)
            }
            return data
        }
    }

    /// Reads a downloaded file on a dispatch queue, off the cooperative pool.
    static func readOffPool(_ url: URL) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Data(contentsOf: url) }) }
        }
    }

    /// The media playlist `request` names.
    ///
    /// - Throws: `HLSError.unexpectedPlaylistKind` when it is a master playlist; those of `playlist(for:)`.
    public func mediaPlaylist(for request: AssetRequest) async throws -> HLSMediaPlaylist {
        guard case .media(let media) = try await playlist(for: request) else {
            throw HLSError.unexpectedPlaylistKind(url: request.url, expected: "media")
        }
        return media
    }

    /// The bytes of `resource` (a segment, init section or key): from a download, from the cache, or fetched
    /// once and cached.
    ///
    /// - Parameters:
    ///   - resource: what to read.
    ///   - headers: extra request headers (authorization); not part of the key.
    /// - Throws: `HLSError.byteRangeMismatch`, `AssetsError` for a failed fetch; `CancellationError`.
    public func data(for resource: HLSResource, headers: [String: String] = [:]) async throws -> Data {
        let key = cacheKey(for: resource)
        if let file = downloads?.downloadedResource(forKey: key), let data = try? await Self.readOffPool(file) {
            counters.withLock { $0.bytesServedFromDownloads += data.count }
            return data
        }
        return try await fetches.value(for: key) { [self] _ in
            if let cached = try? await manager.readData(forKey: key, storageType: storageType) {
                counters.withLock { $0.bytesServedFromCache += cached.count }
                return cached
            }
            let data = try await fetch(AssetRequest(url: resource.uri, headers: headers), range: resource.byteRange)
            do {
                try await manager.writeData(data, forKey: key, storageType: storageType)
                counters.withLock { $0.resourcesStored += 1 }
            } catch {
                counters.withLock { $0.storeFailures += 1 }  // still served; fetched again next time
            }
            return data
        }
    }

    /// Whether `resource` is in the cache (nothing is fetched).
    public func isCached(_ resource: HLSResource) async -> Bool {
        (try? await manager.readData(forKey: cacheKey(for: resource), storageType: storageType)) != nil
    }

    /// Caches the first `seconds` of the stream: its keys, init sections and segments up to that time.
    ///
    /// A master playlist prefetches its highest-bandwidth variant and that variant's audio rendition.
    public func prefetch(_ request: AssetRequest, seconds: Double) async throws {
        _ = try await preload(request, seconds: seconds, byteLimit: .max)
    }

    /// `prefetch(_:seconds:)` within `byteLimit` bytes of keys, init sections and segments (cached ones count):
    /// a segment is read only while the bytes so far plus the largest segment seen (or its byte range, when
    /// the playlist gives one) stay within the limit. Returns the bytes read.
    package func preload(
        _ request: AssetRequest, seconds: Double, byteLimit: Int, progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> Int {
        var bytes = 0
        var largest = 0
        for playlistRequest in try await mediaPlaylistRequests(for: request, select: Self.highestBandwidth) {
            let media = try await mediaPlaylist(for: playlistRequest.request)
            var covered = 0.0
            for segment in media.segments where covered < seconds {
                let expected = segment.byteRange?.count ?? largest
                guard byteLimit == .max || bytes + expected <= byteLimit else { return bytes }
                for resource in HLSResource.needed(by: segment) {
                    let data = try await data(for: resource, headers: request.headers)
                    bytes += data.count
                    if resource.kind == .segment { largest = max(largest, data.count) }
                }
                progress(bytes)
                covered += segment.duration
            }
        }
        return bytes
    }

    /// The key `resource` is cached under.
    func cacheKey(for resource: HLSResource) -> CacheKey {
        let key = manager.cacheKey(for: AssetRequest(url: resource.uri))
        guard let range = resource.byteRange else { return key }
        return key.variant("bytes=\(range.lowerBound)-\(range.upperBound - 1)")
    }

    /// GETs `request` (a `Range` when `range` is given) and returns the checked body.
    func fetch(_ request: AssetRequest, range: Range<Int>?) async throws -> Data {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let range {
            urlRequest.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
        }
        counters.withLock { $0.originRequests += 1 }
        let response = try await manager.runtime.load(urlRequest)
        counters.withLock { $0.bytesFetched += response.data.count }
        switch (response.statusCode, range) {
        case (200, nil):
            return response.data
        case (206, let range?):
            guard response.data.count == range.count else {
                throw HLSError.byteRangeMismatch(url: request.url, expected: range, receivedBytes: response.data.count)
            }
            return response.data
        case (200, let range?):
            // A server that ignores Range sends the whole file: the part is cut from it.
            guard response.data.count >= range.upperBound else {
                throw HLSError.byteRangeMismatch(url: request.url, expected: range, receivedBytes: response.data.count)
            }
            let start = response.data.startIndex
            return Data(response.data[(start + range.lowerBound)..<(start + range.upperBound)])
        default:
            throw AssetsError.httpStatus(code: response.statusCode, url: request.url)
        }
    }

    /// A master playlist, or a media playlist that will not change (`EXT-X-ENDLIST`): safe to cache.
    static func isFinal(_ playlist: HLSPlaylist) -> Bool {
        switch playlist {
        case .master: return true
        case .media(let media): return media.isEndList
        }
    }

    /// The variant with the highest bandwidth.
    package static let highestBandwidth: @Sendable (HLSMasterPlaylist) -> HLSVariant? = { master in
        master.variants.max { $0.bandwidth < $1.bandwidth }
    }
}

extension HLSUtil {
    /// The media playlist `request` names, then each reload of it, one per target duration, until it
    /// ends (`EXT-X-ENDLIST`) or the consumer stops iterating.
    ///
    /// A reload that lists nothing new waits half a target duration before the next, as RFC 8216
    /// (6.3.4) asks of clients. Nothing is cached here; fetch what the consumer plays with
    /// `data(for:headers:)`, so only what is listed is ever cached.
    public func playlistUpdates(for request: AssetRequest) -> AsyncThrowingStream<HLSMediaPlaylist, Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task { [self] in
                do {
                    var lastSequence: Int?
                    while true {
                        let media = try await mediaPlaylist(for: request)
                        continuation.yield(media)
                        if media.isEndList { break }
                        let newest = media.mediaSequence + media.segments.count
                        let target = Double(media.targetDuration)
                        let seconds = newest == lastSequence ? target / 2 : target
                        lastSequence = newest
                        try await sleep(.milliseconds(Int(seconds * 1_000)))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
