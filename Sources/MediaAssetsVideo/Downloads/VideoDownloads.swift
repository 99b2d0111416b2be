import Foundation
import MediaAssets
import Synchronization

/// Offline video: a persistent queue of downloads, progressive files and HLS streams alike, kept outside the
/// cache, with its own index and files.
///
/// A download is queued with ``enqueue(_:kind:maximumBandwidth:)`` and fetched when a slot is free
/// (``Configuration/maximumParallelDownloads``). A progressive file is fetched by `Range` requests into
/// one file, written as bytes arrive; an HLS stream's segments, keys and init sections several at a time
/// (``Configuration/maximumParallelSegments``), each file written whole, with local playlists a player
/// opens. The queue and each download's record survive a restart, also after `kill -9`: a new manager on
/// the same directory resumes what was under way from the bytes on disk (`Range` with `If-Range`; a changed
/// resource starts over). A damaged index is rebuilt from the downloads' own records.
///
/// Downloads are written once and never evicted: other traffic cannot push them out, and a resource larger
/// than the cache's budget can be kept. A ``VideoUtil``, ``HLSUtil`` (and so the video proxy) given the
/// manager read completed downloads before the cache and the network. Keys of encrypted HLS streams stay
/// beside their segments, as delivered; encrypting downloads at rest is the storage layer's concern.
///
/// ```swift
/// let downloads = try VideoDownloads(manager: manager, configuration: .init(directory: dir, quota: 4 << 30))
/// let download = try downloads.enqueue(AssetRequest(url: movieURL))
/// for await update in downloads.updates(of: download.id) { print(update.progress.fractionCompleted ?? 0) }
/// let video = VideoUtil(manager: manager, downloads: downloads)   // plays it offline
/// ```
public final class VideoDownloads: Sendable {
    /// Fetches go through this manager (its loader, retry policy and response limit).
    public let manager: AssetsManager
    /// Where the downloads live and how they run.
    public let configuration: Configuration
    let store: DownloadStore
    /// Reads playlists for HLS downloads (its cache holds VOD playlists only, never media).
    let hls: HLSUtil
    let state: Mutex<DownloadsState>

    /// Opens (creating) the downloads in `configuration.directory` and resumes what was queued or under way.
    ///
    /// - Throws: `VideoDownloadError.storageFailed` when the directory cannot be used (another process holds
    ///   it, no permission).
    public init(manager: AssetsManager, configuration: Configuration) throws {
        var configuration = configuration
        configuration.maximumParallelDownloads = max(1, configuration.maximumParallelDownloads)
        configuration.maximumParallelSegments = max(1, configuration.maximumParallelSegments)
        configuration.rangeSize = max(1, min(configuration.rangeSize, manager.configuration.maxResponseSize))
        configuration.maximumAttempts = max(1, configuration.maximumAttempts)
        self.manager = manager
        self.configuration = configuration
        self.hls = HLSUtil(manager: manager)
        store = try DownloadStore(root: configuration.directory)
        let loaded = try store.loadIndex()
        var state = DownloadsState(index: loaded.index)
        state.rebuiltIndex = loaded.rebuilt
        state.lookup = DownloadLookup(records: loaded.index.downloads, store: store)
        state.isPaused = configuration.startsPaused
        for record in loaded.index.downloads {
            let usage = store.usage(of: record)
            state.usage[record.id] = usage
        }
        self.state = Mutex(state)
        schedule()
    }

    /// Every download, in queue order.
    public var downloads: [VideoDownload] {
        state.withLock { state in state.index.downloads.map { snapshot(of: $0, state) } }
    }

    /// The download `id`, if any.
    public func download(id: String) -> VideoDownload? {
        state.withLock { state in state._record(id).map { snapshot(of: $0, state) } }
    }

    /// The download of what `request` names (by its cache key), if any.
    public func download(for request: AssetRequest) -> VideoDownload? {
        let key = manager.cacheKey(for: request).rawValue
        return state.withLock { state in
            state.index.downloads.first { $0.key == key }.map { snapshot(of: $0, state) }
        }
    }

    /// The bytes all downloads take on disk.
    public var bytesUsed: Int { state.withLock { $0.usage.values.reduce(0) { $0 + $1.bytes } } }

    /// Whether the index was rebuilt from the downloads' records when the manager opened (it was missing or
    /// damaged).
    public var rebuiltIndex: Bool { state.withLock { $0.rebuiltIndex } }

    /// Queues a download of what `request` names, or returns the one already there (in whatever state).
    ///
    /// For a download already there, a new URL or new headers (a fresh signed URL, a new token) replace the
    /// old ones for its next requests.
    ///
    /// - Parameters:
    ///   - request: the URL and headers (kept with the download, also across restarts).
    ///   - kind: progressive file or HLS stream; by default HLS when the path ends in `.m3u8`.
    ///   - maximumBandwidth: for an HLS master playlist, the variant with the highest bandwidth at or below
    ///     this (the lowest when none is); the highest when `nil`.
    /// - Throws: `VideoDownloadError.storageFailed` when its record cannot be written.
    @discardableResult
    public func enqueue(
        _ request: AssetRequest, kind: VideoDownload.Kind? = nil, maximumBandwidth: Int? = nil
    ) throws -> VideoDownload {
        guard !store.isClosed else { throw VideoDownloadError.storageFailed(path: store.root.path, reason: "closed") }
        let key = manager.cacheKey(for: request).rawValue
        let kind = kind ?? (request.url.pathExtension.lowercased() == "m3u8" ? .hls : .progressive)
        let (record, isNew, changed) = state.withLock { state -> (DownloadRecord, Bool, Bool) in
            if let existing = state.index.downloads.first(where: { $0.key == key }) {
                guard existing.url != request.url || existing.headers != request.headers else {
                    return (existing, false, false)
                }
                state._update(existing.id) {
                    $0.url = request.url
                    $0.headers = request.headers
                }
                return (existing, false, true)
            }
            let id = "d\(state.index.nextNumber)"
            state.index.nextNumber += 1
            let order = (state.index.downloads.map(\.order).max() ?? -1) + 1
            let record = DownloadRecord(
                id: id, key: key, url: request.url, headers: request.headers, kind: kind, state: .queued,
                failure: nil, order: order, info: nil, fileName: Self.mediaFileName(for: request.url),
                hls: nil, maximumBandwidth: maximumBandwidth)
            state.index.downloads.append(record)
            state.usage[id] = (0, 0)
            return (record, true, false)
        }
        if changed { try saveRecord(record.id) }
        if isNew {
            do {
                try store.saveRecord(record)
                try saveIndex()
            } catch {
                state.withLock { state in
                    state.index.downloads.removeAll { $0.id == record.id }
                    state.usage[record.id] = nil
                }
                try? store.removeDirectory(of: record.id)
                throw error
            }
            schedule()
        }
        return state.withLock { snapshot(of: $0._record(record.id) ?? record, $0) }
    }

    /// Holds every queued download: the running ones stop (queued again, keeping what they fetched) and
    /// none starts until `resumeAll()`. Returns once they have stopped writing.
    public func pauseAll() async {
        let running = state.withLock { state in
            state.isPaused = true
            return Array(state.running.keys)
        }
        for id in running { await stop(id, becoming: .queued) }
    }

    /// Lets queued downloads start again after `pauseAll()` (or `Configuration.startsPaused`).
    public func resumeAll() {
        state.withLock { $0.isPaused = false }
        schedule()
    }

    /// Stops the running downloads (they stay queued on disk, for the next manager to resume) and releases
    /// the directory; later calls that change downloads throw `VideoDownloadError.storageFailed`.
    public func close() async {
        await pauseAll()
        store.releaseLock()
    }

    /// Stops a queued or running download, keeping what it fetched; returns once it has stopped writing.
    public func pause(_ id: String) async {
        await stop(id, becoming: .paused)
    }

    /// Queues a paused or failed download again; it goes on from what is on disk.
    ///
    /// - Throws: `VideoDownloadError.unknownDownload`.
    public func resume(_ id: String) throws {
        try state.withLock { state throws(VideoDownloadError) in
            guard let record = state._record(id) else { throw .unknownDownload(id: id) }
            guard record.state == .paused || record.state == .failed else { return }
            state._update(id) {
                $0.state = .queued
                $0.failure = nil
            }
            state.failures[id] = nil
        }
        try saveRecord(id)
        schedule()
        notify(id)
    }

    /// Stops an unfinished download and deletes what it fetched; a completed one stays (see ``remove(_:)``).
    ///
    /// - Throws: `VideoDownloadError.unknownDownload`, `.storageFailed`.
    public func cancel(_ id: String) async throws {
        guard let record = state.withLock({ $0._record(id) }) else { throw VideoDownloadError.unknownDownload(id: id) }
        guard record.state != .completed else { return }
        try await remove(id)
    }

    /// Stops a download if it runs and deletes it, whatever its state: its files, its record, its place in
    /// the index.
    ///
    /// - Throws: `VideoDownloadError.unknownDownload`, `.storageFailed`.
    public func remove(_ id: String) async throws {
        guard state.withLock({ $0._record(id) }) != nil else { throw VideoDownloadError.unknownDownload(id: id) }
        await stop(id, becoming: nil)
        let (observers, waiters) = state.withLock { state in
            state.index.downloads.removeAll { $0.id == id }
            state.usage[id] = nil
            state.failures[id] = nil
            state.lookup = DownloadLookup(records: state.index.downloads, store: store)
            return (state.observers.removeValue(forKey: id), state.waiters.removeValue(forKey: id))
        }
        // The index first: a kill between the two leaves a directory the next start drops, never a ghost.
        try saveIndex()
        try await store.run { [store] in try store.removeDirectory(of: id) }
        for observer in observers?.values ?? [:].values { observer.finish() }
        for waiter in waiters?.values ?? [:].values { waiter.resume(throwing: VideoDownloadError.cancelled(id: id)) }
        schedule()
    }

    /// The download `id` as it changes: its snapshot now, then after every change of state or progress;
    /// the sequence ends when the download completes, fails or is removed.
    public func updates(of id: String) -> AsyncStream<VideoDownload> {
        let (stream, continuation) = AsyncStream<VideoDownload>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let token = UUID()
        let current = state.withLock { state -> VideoDownload? in
            guard let record = state._record(id) else { return nil }
            let download = snapshot(of: record, state)
            if !Self.isFinal(download.state) { state.observers[id, default: [:]][token] = continuation }
            return download
        }
        if let current { continuation.yield(current) }
        if current.map({ Self.isFinal($0.state) }) ?? true { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.observers[id]?.removeValue(forKey: token) }
        }
        return stream
    }

    /// Returns the download once it completed.
    ///
    /// - Throws: the download's error when it fails, `VideoDownloadError.cancelled` when it is removed,
    ///   `.unknownDownload`; `CancellationError`. A paused download is waited for until resumed.
    public func waitUntilFinished(_ id: String) async throws -> VideoDownload {
        let token = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<VideoDownload, Error>) in
                let outcome = state.withLock { state -> Result<VideoDownload, Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard let record = state._record(id) else {
                        return .failure(VideoDownloadError.unknownDownload(id: id))
                    }
                    let download = snapshot(of: record, state)
                    switch download.state {
                    case .completed: return .success(download)
                    case .failed(let error): return .failure(error)
                    default:
                        state.waiters[id, default: [:]][token] = continuation
                        return nil
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters[id]?.removeValue(forKey: token) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    static func isFinal(_ state: VideoDownload.State) -> Bool {
        switch state {
        case .completed, .failed: return true
        default: return false
        }
    }

    /// The name of a progressive download's file: the URL's, with an extension players know.
    static func mediaFileName(for url: URL) -> String {
        let ext = url.pathExtension.lowercased()
        let known: Set<String> = ["mp4", "m4v", "m4a", "mov", "webm", "mkv", "ts", "mp3", "aac", "ogg", "wav"]
        return "media." + (known.contains(ext) ? ext : "bin")
    }
}
