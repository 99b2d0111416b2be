import Foundation

/// The mutable state of a `VideoDownloads`, behind one `Mutex`; never held across I/O.
struct DownloadsState {
    var index: DownloadIndex
    var rebuiltIndex = false
    /// No queued download starts while set (`pauseAll()`).
    var isPaused = false
    /// The tasks of the downloads fetching now.
    var running: [String: Task<Void, Never>] = [:]
    /// What a stopped download becomes once its task has ended (nil: it is being removed).
    var stopping: [String: DownloadRecord.StoredState?] = [:]
    /// The typed errors of downloads that failed in this run.
    var failures: [String: VideoDownloadError] = [:]
    /// Bytes and files on disk, per download.
    var usage: [String: (bytes: Int, files: Int)] = [:]
    /// Bytes a running progressive download will still write (counted against the quota).
    var reserved: [String: Int] = [:]
    /// Completed downloads by what readers ask for: progressive files and HLS resources by cache key, the
    /// original HLS playlists by their playlist cache key.
    var lookup = DownloadLookup()
    var observers: [String: [UUID: AsyncStream<VideoDownload>.Continuation]] = [:]
    var waiters: [String: [UUID: CheckedContinuation<VideoDownload, Error>]] = [:]

    func _record(_ id: String) -> DownloadRecord? {
        index.downloads.first { $0.id == id }
    }

    mutating func _update(_ id: String, _ change: (inout DownloadRecord) -> Void) {
        guard let position = index.downloads.firstIndex(where: { $0.id == id }) else { return }
        change(&index.downloads[position])
    }
}

/// Where completed downloads are found by cache key.
struct DownloadLookup {
    var progressive: [String: (file: URL, info: VideoContentInfo)] = [:]
    var hlsResources: [String: URL] = [:]
    var hlsPlaylists: [String: URL] = [:]

    /// Rebuilt from the records after a download completed or went.
    init(records: [DownloadRecord] = [], store: DownloadStore? = nil) {
        guard let store else { return }
        for record in records where record.state == .completed {
            switch record.kind {
            case .progressive:
                if let info = record.info {
                    progressive[record.key] = (store.file(record.fileName, of: record.id), info)
                }
            case .hls:
                for file in record.hls?.files ?? [] { hlsResources[file.key] = store.file(file.name, of: record.id) }
                for (key, name) in record.hls?.playlists ?? [:] { hlsPlaylists[key] = store.file(name, of: record.id) }
            }
        }
    }
}
