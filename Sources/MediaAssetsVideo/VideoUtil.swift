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
/// fetched wait on that fetch. A run's body is cut into chunks when it is complete (the loader
/// returns whole bodies), and each chunk is stored only when complete and of the expected length.
/// A read works through its range in windows of 8 MiB (at least 4 chunks), so a run longer than
/// that takes one request per window and a stream yields a long missing run window by window.
/// A stream does not wait for its consumer: what it has yielded and the consumer has not taken yet
/// stays buffered, so a consumer much slower than the network should read long ranges in pieces
/// with `data(for:range:)`.
///
/// Fetches after the first send `If-Range`. A 200 where a 206 was asked means either a changed
/// resource (new ETag or length: its chunks are dropped and the read starts over on the new content)
/// or a server that ignores `Range` (the body is cut into chunks and cached). Resources larger than
/// the storage budget play through uncached.
///
/// ```swift
/// let video = VideoUtil(manager: manager)
/// let info = try await video.contentInfo(for: url)
/// for try await bytes in video.stream(for: url, range: 0..<info.length) { player.append(bytes) }
/// ```
public final class VideoUtil: Sendable {
    /// The manager chunks are stored and fetched through.
    public let manager: AssetsManager
    /// The chunk size and storage in use.
    public let configuration: Configuration

    let state = Mutex(VideoState())
    let probePool = RequestPool<CacheKey, VideoContentInfo>()
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
        self.windowChunkCount = max(4, (8 << 20) / configuration.chunkSize)
    }

    /// A snapshot of the counters.
    public var statistics: VideoStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.fetchesJoined += probePool.joinCount
        return statistics
    }

    /// Returns the bytes `range` of the video at `url` as one contiguous `Data`.
    ///
    /// Cached chunks are read from the cache; missing runs are fetched with one request each.
    ///
    /// - Throws: `VideoError.invalidRange` for an empty range or one outside the resource; other
    ///   `VideoError`s for responses that do not fit; `CancellationError`.
    public func data(for url: URL, range: Range<Int>) async throws -> Data {
        var attempt = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: url)
            let bytes = try validated(range, url: url, length: resource.info.length)
            do {
                var pieces: [Data] = []
                try await read(url: url, key: key, resource: resource, bytes: bytes) { pieces.append($0) }
                return Self.joined(pieces, count: bytes.count)
            } catch is ReadRestart {
                if attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: url) }
            }
        }
    }

    /// Yields the bytes `range` of the video at `url` in order, as they become available.
    ///
    /// Cached chunks are yielded at once; a missing run's chunks as soon as its fetch completes.
    /// Ending the iteration (or cancelling its task) cancels the fetches no other reader needs.
    /// Errors are those of `data(for:range:)`, plus `VideoError.resourceChanged` when the
    /// resource changes after some bytes were yielded.
    public func stream(for url: URL, range: Range<Int>) -> AsyncThrowingStream<Data, Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, Error>.makeStream()
        let task = Task { [self] in
            do {
                try await produce(url: url, range: range, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Caches the first `byteCount` bytes of the video at `url` (fewer when it is shorter).
    ///
    /// Does nothing for a resource that plays through uncached.
    public func prefetch(for url: URL, byteCount: Int) async throws {
        var attempt = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: url)
            let count = min(max(0, byteCount), resource.info.length)
            guard count > 0, resource.isCacheable else { return }
            do {
                try await read(url: url, key: key, resource: resource, bytes: 0..<count) { _ in }
                return
            } catch is ReadRestart {
                if attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: url) }
            }
        }
    }

    /// Removes the cached chunks and meta record of the video at `url`.
    public func remove(for url: URL) async throws {
        let key = manager.cacheKey(for: AssetRequest(url: url))
        let known = state.withLock { $0.resources.removeValue(forKey: key) }
        var layouts: [ChunkLayout] = []
        if let known { layouts.append(ChunkLayout(chunkSize: configuration.chunkSize, length: known.info.length)) }
        if let record = try await storedRecord(for: key) {
            layouts.append(ChunkLayout(chunkSize: record.chunkSize, length: record.info.length))
        }
        try await removeChunks(of: key, layouts: layouts)
    }

    // MARK: Internals

    /// Thrown inside a read when the resource changed and the read must start over.
    struct ReadRestart: Error {}

    private func produce(
        url: URL, range: Range<Int>, into continuation: AsyncThrowingStream<Data, Error>.Continuation
    ) async throws {
        var attempt = 0
        var delivered = 0
        while true {
            attempt += 1
            let (key, resource) = try await resourceState(for: url)
            let bytes = try validated(range, url: url, length: resource.info.length)
            do {
                try await read(
                    url: url, key: key, resource: resource, bytes: bytes, uncachedPieceSize: configuration.chunkSize
                ) { piece in
                    delivered += piece.count
                    continuation.yield(piece.startIndex == 0 ? piece : Data(piece))
                }
                return
            } catch is ReadRestart {
                // Old bytes already went out: mixing in new ones would corrupt the player's buffer.
                if delivered > 0 || attempt >= Self.maximumAttempts { throw VideoError.resourceChanged(url: url) }
            }
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
