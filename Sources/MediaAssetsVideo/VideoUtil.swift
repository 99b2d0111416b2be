import Foundation
import MediaAssets
import MediaAssetsImage
import Synchronization

/// Reads videos by byte ranges, handing bytes on as they arrive and caching them as fixed-size chunks on
/// the way.
///
/// Chunks are ordinary entries `<key>#<index>` in the manager's backend for `configuration.storageType`,
/// beside a `<key>#meta` record with the length, type and validators, so the backend's LRU evicts them
/// like anything else and a missing chunk is simply fetched again.
///
/// A read works through its range in windows: `windowSize` (8 MiB, at least 4 chunks) for an explicit range,
/// `readAhead` (one chunk by default) for a stream. In each window, cached chunks are read in one go; each
/// run of missing chunks is fetched with one streamed `Range` request through `AssetsManager.stream(_:)`,
/// whose bytes reach the reader as they arrive and whose chunks are stored as each completes, off the
/// reader's path. Readers needing a chunk another reader is fetching join that fetch and read its bytes from
/// memory. A stream starts a window only once its consumer has taken everything it was given, so a seek
/// costs the bytes read plus at most the read-ahead, and a slow consumer holds at most the read-ahead.
///
/// Fetches after the first send `If-Range`. A 200 where a 206 was asked means either a changed resource
/// (new ETag or length: its chunks are dropped and the read starts over on the new content) or a server
/// that ignores `Range` (the body is read through, its chunks stored). A range running past the end is
/// clamped to the resource, as HTTP reads it. Resources larger than the storage budget play through
/// uncached; download them with ``VideoDownloads`` to keep them. Downloaded videos are read from their file
/// before the cache and the network.
///
/// ```swift
/// let video = VideoUtil(manager: manager)
/// let request = AssetRequest(url: url, headers: ["Authorization": token])
/// let info = try await video.contentInfo(for: request)
/// for try await bytes in video.stream(for: request, range: 0..<info.length) { player.append(bytes) }
/// ```
public final class VideoUtil: Sendable {
    /// The manager chunks are stored and fetched through.
    public let manager: AssetsManager
    /// The chunk size and storage in use.
    public let configuration: Configuration
    /// The downloads read before the cache and the network, if any.
    public let downloads: VideoDownloads?

    let state = Mutex(VideoState())
    let probePool = RequestPool<CacheKey, VideoContentInfo>()
    /// Stills being taken, by the key they are stored under.
    let framePool = RequestPool<CacheKey, Image>()
    /// How many stills are demuxed and decoded at once (each on a thread of its own).
    let frameLimiter = WorkLimiter(limit: 2)
    /// FFmpeg's libraries for stills: the system's unless a test set others (or a failure to load them).
    package let frameLibraryOverride = Mutex<Result<FFmpegLibrary, VideoError>?>(nil)
    /// How many chunks one window of an explicit range (`data`, `prefetch`) holds.
    let windowChunkCount: Int
    /// Awaited by a reader just before it joins or registers the fetches of the chunks it is missing: a test
    /// seam that lets readers meet at that step, as a preempted thread would. `nil` outside tests.
    let beforeClaimingChunks = Mutex<(@Sendable () async -> Void)?>(nil)
    /// How many chunks one window of a stream holds: its read-ahead, in whole chunks.
    let streamWindowChunkCount: Int
    /// Reads start over at most this many times when the resource changes under them.
    static let maximumAttempts = 3

    /// Creates a util storing through `manager`, reading `downloads` first when given.
    public init(manager: AssetsManager, configuration: Configuration = .init(), downloads: VideoDownloads? = nil) {
        var configuration = configuration
        configuration.chunkSize = max(1, configuration.chunkSize)
        self.manager = manager
        self.configuration = configuration
        self.downloads = downloads
        self.windowChunkCount = max(4, configuration.windowSize / configuration.chunkSize)
        self.streamWindowChunkCount = max(1, (configuration.readAhead - 1) / configuration.chunkSize + 1)
    }

    /// A snapshot of the counters.
    public var statistics: VideoStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.fetchesJoined += probePool.joinCount
        return statistics
    }

    /// Returns the bytes `range` of the video `request` names as one contiguous `Data`.
    ///
    /// A range running past the end of the resource is clamped to it. Cached chunks are read from the
    /// cache; missing runs are fetched with one request each, with the request's headers; the chunks
    /// fetched are stored before it returns.
    ///
    /// - Throws: `VideoError.invalidRange` for an empty range or one starting outside the resource; other
    ///   `VideoError`s for responses that do not fit; `CancellationError`.
    public func data(for request: AssetRequest, range: Range<Int>) async throws -> Data {
        if let local = downloadedFile(for: request) {
            let data = try await local.data(clamped(range, url: request.url, length: local.info.length))
            state.withLock { $0.statistics.bytesServedFromDownloads += data.count }
            return data
        }
        var attempt = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: request)
            let bytes = try clamped(range, url: request.url, length: resource.info.length)
            var pieces: [Data] = []
            do {
                try await read(asset: request, key: key, resource: resource, bytes: bytes) { pieces.append($0) }
                return Self.joined(pieces, count: bytes.count)
            } catch is ReadRestart {
                if attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: request.url) }
            }
        }
    }

    /// The bytes `range` of the video `request` names, in order, as they arrive.
    ///
    /// Cached chunks are yielded at once; fetched bytes as they arrive (see `VideoByteStream`). A range
    /// running past the end is clamped. Ending the iteration (or cancelling its task) cancels the fetches no
    /// other reader needs. Errors are those of `data(for:range:)`, plus `VideoError.resourceChanged` when
    /// the resource changes after some bytes were yielded.
    public func stream(for request: AssetRequest, range: Range<Int>) -> VideoByteStream {
        VideoByteStream { [self] in
            let channel = WindowChannel { [weak self] buffered, parked in
                self?.state.withLock { state in
                    state.statistics.streamBufferPeak = max(state.statistics.streamBufferPeak, buffered)
                    state.parkedProducers += parked
                }
            }
            let producer = Task { [self] in
                do {
                    try await produce(request, range: range, into: channel)
                    channel.finish()
                } catch {
                    channel.finish(throwing: error)
                }
            }
            return (channel, producer)
        }
    }

    /// Caches the first `byteCount` bytes of the video `request` names (fewer when it is shorter), returning
    /// once they are stored.
    ///
    /// Does nothing for a resource that plays through uncached, or one that is downloaded.
    public func prefetch(for request: AssetRequest, byteCount: Int) async throws {
        guard downloadedFile(for: request) == nil else { return }
        var attempt = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: request)
            let count = min(max(0, byteCount), resource.info.length)
            guard count > 0, resource.isCacheable else { return }
            do {
                try await read(asset: request, key: key, resource: resource, bytes: 0..<count) { _ in }
                return
            } catch is ReadRestart {
                if attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: request.url) }
            }
        }
    }

    /// Removes the cached chunks and meta record of the video `request` names (a download stays).
    package func remove(for request: AssetRequest) async throws {
        let key = manager.cacheKey(for: request)
        let known = state.withLock { $0.resources.removeValue(forKey: key) }
        var layouts: [ChunkLayout] = []
        if let known { layouts.append(ChunkLayout(chunkSize: configuration.chunkSize, length: known.info.length)) }
        if let record = try await storedRecord(for: key) {
            layouts.append(ChunkLayout(chunkSize: record.chunkSize, length: record.info.length))
        }
        try await removeChunks(of: key, layouts: layouts)
    }

    /// How many stream producers wait for their consumer to take what it was given (for tests).
    package var parkedStreamProducers: Int { state.withLock { $0.parkedProducers } }

    /// Returns once every chunk fetched so far has been stored (or failed to be): streams store in the
    /// background (for tests).
    package func waitForPendingStores() async {
        let fetches = state.withLock { $0.activeFetches.values.map(\.fetch) }
        for fetch in fetches { await fetch.waitForStores() }
    }

    // MARK: Internals

    /// Thrown inside a read when the resource changed and the read must start over.
    struct ReadRestart: Error {}

    /// Reads `range` into `channel`, a window of `readAhead` bytes at a time once the consumer has taken
    /// everything it was given; starts over when the resource changes before anything went out.
    private func produce(_ request: AssetRequest, range: Range<Int>, into channel: WindowChannel) async throws {
        let windowBytes = streamWindowChunkCount * configuration.chunkSize
        // A window is started only for a consumer that has taken all it was given: what is fetched and not
        // taken stays within one window, however far ahead of the player that would otherwise run.
        let waitForDemand = {
            guard await channel.waitUntilBuffered(atMost: 0) else { throw CancellationError() }
        }
        if let local = downloadedFile(for: request) {
            let bytes = try clamped(range, url: request.url, length: local.info.length)
            return try await local.read(bytes, windowSize: windowBytes, beforeWindow: waitForDemand) { piece in
                state.withLock { $0.statistics.bytesServedFromDownloads += piece.count }
                channel.send(piece)
            }
        }
        var attempt = 0
        var delivered = false
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: request)
            let bytes: Range<Int>
            do {
                bytes = try clamped(range, url: request.url, length: resource.info.length)
            } catch VideoError.invalidRange where delivered {
                throw VideoError.resourceChanged(url: request.url)  // it shrank under the stream
            }
            do {
                try await read(
                    asset: request, key: key, resource: resource, bytes: bytes,
                    windowChunks: streamWindowChunkCount, beforeWindow: waitForDemand
                ) {
                    channel.send($0)
                    delivered = true
                }
                return
            } catch is ReadRestart {
                // Once old bytes went out, mixing in new ones would corrupt the reader's data.
                if delivered || attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: request.url) }
            }
        }
    }

    /// `range` clamped to a resource of `length` bytes, as HTTP reads a range running past the end.
    ///
    /// - Throws: `VideoError.invalidRange` when it is empty or starts outside the resource.
    func clamped(_ range: Range<Int>, url: URL, length: Int) throws -> Range<Int> {
        guard !range.isEmpty, range.lowerBound >= 0, range.lowerBound < length else {
            throw VideoError.invalidRange(url: url, requested: range, length: length)
        }
        return range.lowerBound..<min(range.upperBound, length)
    }

    /// One contiguous `Data` starting at index 0, copying only when the pieces are not one already.
    private static func joined(_ pieces: [Data], count: Int) -> Data {
        if pieces.count == 1, pieces[0].startIndex == 0 { return pieces[0] }
        var result = Data(capacity: count)
        for piece in pieces { result.append(piece) }
        return result
    }
}

extension VideoUtil {
    /// `contentInfo(for:)` of a plain request for `url` (no headers, no version).
    public func contentInfo(for url: URL) async throws -> VideoContentInfo {
        try await contentInfo(for: AssetRequest(url: url))
    }

    /// `data(for:range:)` of a plain request for `url`.
    public func data(for url: URL, range: Range<Int>) async throws -> Data {
        try await data(for: AssetRequest(url: url), range: range)
    }

    /// `stream(for:range:)` of a plain request for `url`.
    public func stream(for url: URL, range: Range<Int>) -> VideoByteStream {
        stream(for: AssetRequest(url: url), range: range)
    }

    /// `prefetch(for:byteCount:)` of a plain request for `url`.
    public func prefetch(for url: URL, byteCount: Int) async throws {
        try await prefetch(for: AssetRequest(url: url), byteCount: byteCount)
    }

    /// `remove(for:)` of a plain request for `url`.
    package func remove(for url: URL) async throws {
        try await remove(for: AssetRequest(url: url))
    }
}

/// Removing and pinning a video (`removeAsset(for:)`, `pinAsset(for:storageType:)`): its chunks, its chunk
/// record and anything else derived from its key.
extension VideoUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }

    /// Removes the video `request` names from every storage type — its chunks, its chunk record and
    /// anything else derived from its key — in one call per backend, and forgets what this util
    /// knew of it (`AssetsManager.removeAsset(forKey:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        let key = manager.cacheKey(for: request)
        _ = state.withLock { $0.resources.removeValue(forKey: key) }
        try await manager.removeAsset(forKey: key)
    }
}

/// Removing and pinning a playlist (`removeAsset(for:)`, `pinAsset(for:storageType:)`) and what is derived from
/// its key. Segments, keys and init sections are assets of their own URLs: remove them with
/// `removeResource(_:)`.
extension HLSUtil: AssetUtil {
    /// The util's `storageType`.
    public var defaultStorageType: StorageType { storageType }

    /// Removes a segment, key or init section (every byte range of its URL) from every storage type.
    public func removeResource(_ resource: HLSResource) async throws {
        try await removeAsset(for: AssetRequest(url: resource.uri))
    }
}
