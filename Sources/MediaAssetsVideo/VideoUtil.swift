import Foundation
import MediaAssets
import Synchronization

/// Caches videos as fixed-size chunks and serves byte ranges of them, like ExoPlayer's `SimpleCache`.
///
/// Chunks are ordinary entries `<key>#<index>` in the manager's backend for
/// `configuration.storageType`, beside a `<key>#meta` record with the length, type and validators,
/// so the backend's LRU evicts them like anything else and a missing chunk is simply fetched again.
/// A read serves cached chunks at once and fetches each contiguous run of missing chunks with one
/// `Range` request through `AssetsManager.load(_:progress:)`; readers needing a chunk already being
/// fetched join that fetch (one `RequestPool` flight per run, keyed by every chunk it serves). A run's body is cut into chunks when it is complete (the loader
/// returns whole bodies), and each chunk is stored only when complete and of the expected length.
/// A read works through its range in windows of 8 MiB (at least 4 chunks), so a run longer than
/// that takes one request per window. A stream reads its next window only once the consumer has
/// taken the previous one, so a slow consumer holds at most two windows in memory.
///
/// Fetches after the first send `If-Range`. A 200 where a 206 was asked means either a changed
/// resource (new ETag or length: its chunks are dropped and the read starts over on the new content)
/// or a server that ignores `Range` (the body is cut into chunks and cached). Resources larger than
/// the storage budget play through uncached.
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

    let state = Mutex(VideoState())
    let probePool = RequestPool<CacheKey, VideoContentInfo>()
    /// Chunk fetches: one flight per run of missing chunks, joined by every reader of its chunks.
    let chunkPool = RequestPool<ChunkID, Data>()
    /// How many chunks one read step looks up and fetches at a time, so a stream over a long range
    /// holds a bounded number of chunks.
    let windowChunkCount: Int
    /// Reads start over at most this many times when the resource changes under them.
    static let maximumAttempts = 3

    /// Creates a util storing through `manager`.
    public init(manager: AssetsManager, configuration: Configuration = .init()) {
        var configuration = configuration
        configuration.chunkSize = max(1, configuration.chunkSize)
        self.manager = manager
        self.configuration = configuration
        self.windowChunkCount = max(4, configuration.windowSize / configuration.chunkSize)
    }

    /// A snapshot of the counters.
    public var statistics: VideoStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.fetchesJoined += probePool.joinCount + chunkPool.joinCount
        return statistics
    }

    /// Returns the bytes `range` of the video `request` names as one contiguous `Data`.
    ///
    /// Cached chunks are read from the cache; missing runs are fetched with one request each, with
    /// the request's headers.
    ///
    /// - Throws: `VideoError.invalidRange` for an empty range or one outside the resource; other
    ///   `VideoError`s for responses that do not fit; `CancellationError`.
    public func data(for request: AssetRequest, range: Range<Int>) async throws -> Data {
        Self.joined(try await readRestarting(request, range: range), count: range.count)
    }

    /// The bytes `range` of the video `request` names, in order, one window at a time.
    ///
    /// Cached chunks are yielded at once; a missing run's chunks as soon as its fetch completes.
    /// The next window is read only when the consumer has taken the previous one (see
    /// `VideoByteStream`). Ending the iteration (or cancelling its task) cancels the fetches no
    /// other reader needs. Errors are those of `data(for:range:)`, plus
    /// `VideoError.resourceChanged` when the resource changes after some bytes were yielded.
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

    /// Caches the first `byteCount` bytes of the video `request` names (fewer when it is shorter).
    ///
    /// Does nothing for a resource that plays through uncached.
    public func prefetch(for request: AssetRequest, byteCount: Int) async throws {
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

    /// Removes the cached chunks and meta record of the video `request` names.
    public func remove(for request: AssetRequest) async throws {
        let key = manager.cacheKey(for: request)
        let known = state.withLock { $0.resources.removeValue(forKey: key) }
        var layouts: [ChunkLayout] = []
        if let known { layouts.append(ChunkLayout(chunkSize: configuration.chunkSize, length: known.info.length)) }
        if let record = try await storedRecord(for: key) {
            layouts.append(ChunkLayout(chunkSize: record.chunkSize, length: record.info.length))
        }
        try await removeChunks(of: key, layouts: layouts)
    }

    /// How many stream producers wait for their consumer to take a window (for tests).
    package var parkedStreamProducers: Int { state.withLock { $0.parkedProducers } }

    // MARK: Internals

    /// Thrown inside a read when the resource changed and the read must start over.
    struct ReadRestart: Error {}

    /// Reads `range` as pieces, starting over (when `restartable`) if the resource changes under it.
    private func readRestarting(
        _ request: AssetRequest, range: Range<Int>, uncachedPieceSize: Int = .max, restartable: Bool = true
    ) async throws -> [Data] {
        var attempt = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: request)
            let bytes = try validated(range, url: request.url, length: resource.info.length)
            var pieces: [Data] = []
            do {
                try await read(
                    asset: request, key: key, resource: resource, bytes: bytes, uncachedPieceSize: uncachedPieceSize
                ) { pieces.append($0) }
                return pieces
            } catch is ReadRestart {
                // Once old bytes went out, mixing in new ones would corrupt the reader's data.
                if !restartable || attempt >= Self.maximumAttempts {
                    throw VideoError.resourceChanged(url: request.url)
                }
            }
        }
    }

    /// Reads `range` window by window, each only once the consumer has taken the previous one.
    private func produce(_ request: AssetRequest, range: Range<Int>, into channel: WindowChannel) async throws {
        let length = try await resourceState(for: request).resource.info.length
        let bytes = try validated(range, url: request.url, length: length)
        let windowBytes = windowChunkCount * configuration.chunkSize
        var start = bytes.lowerBound
        var delivered = false
        while start < bytes.upperBound {
            guard await channel.waitForDemand() else { throw CancellationError() }
            let end = min(bytes.upperBound, (start / windowBytes + 1) * windowBytes)
            let window: [Data]
            do {
                window = try await readRestarting(
                    request, range: start..<end, uncachedPieceSize: configuration.chunkSize, restartable: !delivered
                ).map { $0.startIndex == 0 ? $0 : Data($0) }
            } catch VideoError.invalidRange where delivered {
                throw VideoError.resourceChanged(url: request.url)  // it shrank under the stream
            }
            channel.send(window)
            delivered = true
            start = end
        }
    }

    private func validated(_ range: Range<Int>, url: URL, length: Int) throws -> Range<Int> {
        guard !range.isEmpty, range.lowerBound >= 0, range.upperBound <= length else {
            throw VideoError.invalidRange(url: url, requested: range, length: length)
        }
        return range
    }

    /// One contiguous `Data` starting at index 0, copying only when the pieces are not one already.
    private static func joined(_ pieces: [Data], count: Int) -> Data {
        if pieces.count == 1, pieces[0].startIndex == 0 { return pieces[0] }
        var result = Data(capacity: count)
        for piece in pieces { result.append(piece) }
        return result
    }
}
