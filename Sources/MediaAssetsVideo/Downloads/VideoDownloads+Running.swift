import Foundation
import MediaAssets

extension VideoDownloads {
    /// Starts queued downloads, in queue order, while slots are free.
    func schedule() {
        let started = state.withLock { state -> [(String, Task<Void, Never>)] in
            var started: [(String, Task<Void, Never>)] = []
            guard !state.isPaused else { return [] }
            for record in state.index.downloads where record.state == .queued && state.running[record.id] == nil {
                guard state.running.count < configuration.maximumParallelDownloads else { break }
                let id = record.id
                let task = Task { [self] in await run(id) }
                state.running[id] = task
                started.append((id, task))
            }
            return started
        }
        for (id, _) in started { notify(id) }
    }

    /// Fetches one download to its end, then records how it ended.
    private func run(_ id: String) async {
        guard let record = state.withLock({ $0._record(id) }) else { return }
        let outcome: Result<Void, Error>
        do {
            switch record.kind {
            case .progressive: try await downloadProgressive(id)
            case .hls: try await downloadHLS(id)
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        finished(id, outcome)
    }

    /// Records the end of a download's task: completed, failed, or what `pause`/`remove` asked.
    private func finished(_ id: String, _ outcome: Result<Void, Error>) {
        let ended = state.withLock { state -> (DownloadRecord.StoredState?, Bool) in
            state.running[id] = nil
            state.reserved[id] = nil
            if let asked = state.stopping.removeValue(forKey: id) {
                if let asked { state._update(id) { $0.state = asked } }
                return (asked, asked != nil)
            }
            guard state._record(id) != nil else { return (nil, false) }
            switch outcome {
            case .success:
                state._update(id) { $0.state = .completed }
                state.lookup = DownloadLookup(records: state.index.downloads, store: store)
                return (.completed, true)
            case .failure(let error):
                let typed = Self.typed(error, url: state._record(id)?.url)
                state.failures[id] = typed
                state._update(id) {
                    $0.state = .failed
                    $0.failure = typed.description
                }
                return (.failed, true)
            }
        }
        if ended.1 { try? saveRecord(id) }
        notify(id)
        schedule()
    }

    private static func typed(_ error: Error, url: URL?) -> VideoDownloadError {
        if let error = error as? VideoDownloadError { return error }
        let url = url ?? URL(fileURLWithPath: "/")
        if let error = error as? AssetsError { return .fetchFailed(url: url, underlying: error) }
        if let error = error as? HLSError {
            switch error {
            case .writeFailed(let path, let reason): return .storageFailed(path: path, reason: reason)
            case .unexpectedPlaylistKind(let url, let expected):
                return .notDownloadable(url: url, reason: "it is not a \(expected) playlist")
            default: return .unexpectedResponse(url: url, reason: error.description)
            }
        }
        return .unexpectedResponse(url: url, reason: String(describing: error))
    }

    /// Stops a download's task (if it runs) and waits for its end; it then becomes `becoming` (nil: removed).
    func stop(_ id: String, becoming: DownloadRecord.StoredState?) async {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let task = state.running[id] else {
                if let becoming, state._record(id)?.state == .queued { state._update(id) { $0.state = becoming } }
                return nil
            }
            state.stopping[id] = .some(becoming)
            return task
        }
        if let task {
            task.cancel()
            await task.value
        } else if becoming != nil {
            try? saveRecord(id)
            notify(id)
        }
    }

    /// Saves the index and the record of `id` (after a change of state or of what is known).
    func saveRecord(_ id: String) throws {
        guard let record = state.withLock({ $0._record(id) }) else { return }
        try store.saveRecord(record)
        try saveIndex()
    }

    func saveIndex() throws {
        let index = state.withLock { $0.index }
        try store.saveIndex(index)
    }

    /// Tells observers and waiters of `id` what it is now.
    func notify(_ id: String) {
        let (download, observers, waiters) = state.withLock { state in
            guard let record = state._record(id) else {
                return (
                    VideoDownload?.none, [AsyncStream<VideoDownload>.Continuation](),
                    [CheckedContinuation<VideoDownload, Error>]()
                )
            }
            let download = snapshot(of: record, state)
            let isFinal = Self.isFinal(download.state)
            let observers = Array(
                (isFinal ? state.observers.removeValue(forKey: id) : state.observers[id])?.values
                    ?? [:].values)
            let waiters = isFinal ? Array(state.waiters.removeValue(forKey: id)?.values ?? [:].values) : []
            return (download, observers, waiters)
        }
        guard let download else { return }
        for observer in observers {
            observer.yield(download)
            if Self.isFinal(download.state) { observer.finish() }
        }
        for waiter in waiters {
            if case .failed(let error) = download.state {
                waiter.resume(throwing: error)
            } else {
                waiter.resume(returning: download)
            }
        }
    }

    /// Counts bytes written for `id` (and files, for HLS) and tells its observers.
    func recordProgress(_ id: String, bytes: Int, files: Int = 0) {
        state.withLock { state in
            let usage = state.usage[id] ?? (0, 0)
            state.usage[id] = (usage.bytes + bytes, usage.files + files)
            if let reserved = state.reserved[id] { state.reserved[id] = max(0, reserved - bytes) }
        }
        notify(id)
    }

    /// Sets the bytes on disk for `id` (after truncating a file that changed at the origin).
    func resetUsage(_ id: String, bytes: Int) {
        state.withLock { $0.usage[id] = (bytes, 0) }
    }

    /// Checks that `bytes` more for `id` fit the quota, and holds them for it while it runs (a progressive
    /// download's rest, once its length is known).
    func reserve(_ bytes: Int, for id: String, url: URL) throws {
        try state.withLock { state throws(VideoDownloadError) in
            try _checkQuota(bytes, for: id, url: url, state)
            state.reserved[id] = bytes
        }
    }

    /// Counts a file of `bytes` for `id` (an HLS segment about to be written) as used, if it fits the quota:
    /// files written side by side never pass it together.
    func claim(_ bytes: Int, for id: String, url: URL) throws {
        try state.withLock { state throws(VideoDownloadError) in
            try _checkQuota(bytes, for: id, url: url, state)
            let usage = state.usage[id] ?? (0, 0)
            state.usage[id] = (usage.bytes + bytes, usage.files + 1)
        }
    }

    private func _checkQuota(_ bytes: Int, for id: String, url: URL, _ state: DownloadsState) throws(VideoDownloadError)
    {
        guard let quota = configuration.quota else { return }
        let used = state.usage.values.reduce(0) { $0 + $1.bytes }
        let heldByOthers = state.reserved.filter { $0.key != id }.values.reduce(0, +)
        let available = max(0, quota - used - heldByOthers)
        guard bytes <= available else { throw .quotaExceeded(url: url, needed: bytes, available: available) }
    }

    /// The public snapshot of a record.
    func snapshot(of record: DownloadRecord, _ state: DownloadsState) -> VideoDownload {
        let usage = state.usage[record.id] ?? (0, 0)
        let downloadState: VideoDownload.State
        switch record.state {
        case .queued: downloadState = state.running[record.id] == nil ? .queued : .downloading
        case .paused: downloadState = .paused
        case .completed: downloadState = .completed
        case .failed:
            downloadState = .failed(
                state.failures[record.id] ?? .failedEarlier(url: record.url, reason: record.failure ?? "unknown"))
        }
        let totalFiles = record.hls.map { Set($0.files.map(\.name)).count }
        let progress = VideoDownload.Progress(
            bytesDownloaded: usage.bytes, totalBytes: record.kind == .progressive ? record.info?.length : nil,
            completedFiles: usage.files, totalFiles: record.kind == .hls ? totalFiles : nil)
        let localName = record.kind == .progressive ? record.fileName : (record.hls?.localPlaylist ?? "index.m3u8")
        return VideoDownload(
            id: record.id, url: record.url, kind: record.kind, state: downloadState, progress: progress,
            localURL: store.file(localName, of: record.id))
    }
}
