import Foundation

/// A snapshot of one download of a `VideoDownloads` manager: what, how far, and in what state.
public struct VideoDownload: Sendable, Equatable, Identifiable {
    /// What a download fetches.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A progressive file (MP4, WebM, …), fetched by ranges into one file.
        case progressive
        /// An HLS VOD stream: a variant and its audio rendition, segments, init sections and keys.
        case hls
    }

    /// Where a download is in its life; a removed download has no state (it is gone).
    public enum State: Sendable, Equatable {
        /// Waiting for a free slot (or for `resume`).
        case queued
        /// Fetching.
        case downloading
        /// Stopped by `pause`; what was fetched stays, `resume` goes on from there.
        case paused
        /// Every byte is on disk and checked: served before the cache and the network.
        case completed
        /// Stopped by an error; `resume` tries again from where it stopped.
        case failed(VideoDownloadError)
    }

    /// How far a download has come.
    public struct Progress: Sendable, Hashable {
        /// Bytes on disk.
        public var bytesDownloaded: Int
        /// The resource's length, when known (progressive downloads, once the first answer came).
        public var totalBytes: Int?
        /// Files on disk (HLS: segments, keys, init sections).
        public var completedFiles: Int
        /// Files the download consists of, when known.
        public var totalFiles: Int?

        /// Creates a progress value.
        package init(bytesDownloaded: Int, totalBytes: Int?, completedFiles: Int, totalFiles: Int?) {
            self.bytesDownloaded = bytesDownloaded
            self.totalBytes = totalBytes
            self.completedFiles = completedFiles
            self.totalFiles = totalFiles
        }

        /// The fraction done, when the total is known.
        public var fractionCompleted: Double? {
            if let totalBytes, totalBytes > 0 { return min(1, Double(bytesDownloaded) / Double(totalBytes)) }
            if let totalFiles, totalFiles > 0 { return min(1, Double(completedFiles) / Double(totalFiles)) }
            return nil
        }
    }

    /// Identifies the download in its manager (stable across restarts).
    public var id: String
    /// The URL downloaded.
    public var url: URL
    /// Progressive file or HLS stream.
    public var kind: Kind
    /// Where it is in its life.
    public var state: State
    /// How far it has come.
    public var progress: Progress
    /// The local file a player opens: the media file, or the local playlist of an HLS download (it exists
    /// once the download completed).
    public var localURL: URL
}
