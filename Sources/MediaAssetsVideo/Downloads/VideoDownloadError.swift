import Foundation
import MediaAssets

/// Why a download failed or could not be queued.
public enum VideoDownloadError: Equatable, MediaAssetsError {
    /// Downloading `url` would take the downloads past the quota: `needed` more bytes, `available` left.
    case quotaExceeded(url: URL, needed: Int, available: Int)
    /// Fetching a part of `url` failed, after retries (transport, HTTP status, a body cut short).
    case fetchFailed(url: URL, underlying: AssetsError)
    /// The server's answer does not fit what was asked (`reason` says how); nothing of it was written.
    case unexpectedResponse(url: URL, reason: String)
    /// The file ends with `actual` bytes where the resource has `expected`: the download is not complete.
    case lengthMismatch(url: URL, expected: Int, actual: Int)
    /// The stream at `url` cannot be downloaded: a live HLS playlist, or a master playlist without variants.
    case notDownloadable(url: URL, reason: String)
    /// Writing or reading a file of the downloads failed (disk full, no permission).
    case storageFailed(path: String, reason: String)
    /// No download has this identifier (removed, or never queued).
    case unknownDownload(id: String)
    /// The download was cancelled or removed while waited on.
    case cancelled(id: String)
    /// The download had failed in an earlier run of the process, for `reason`; `resume` tries again.
    case failedEarlier(url: URL, reason: String)

    public var description: String {
        switch self {
        case .quotaExceeded(let url, let needed, let available):
            return "Downloading \(url.absoluteString) needs \(needed) more bytes, but only \(available) are left "
                + "under the downloads' quota; remove downloads or raise the quota."
        case .fetchFailed(let url, let underlying):
            return "Downloading \(url.absoluteString) failed: \(underlying.description) (it resumes where it stopped)."
        case .unexpectedResponse(let url, let reason):
            return "The server's answer for \(url.absoluteString) does not fit the request: \(reason); nothing of it "
                + "was kept."
        case .lengthMismatch(let url, let expected, let actual):
            return "The download of \(url.absoluteString) has \(actual) of its \(expected) bytes; it is not complete."
        case .notDownloadable(let url, let reason):
            return "\(url.absoluteString) cannot be downloaded: \(reason)."
        case .storageFailed(let path, let reason):
            return "Could not write or read \(path): \(reason). Check the free space and permissions of its directory."
        case .unknownDownload(let id):
            return "There is no download \(id)."
        case .cancelled(let id):
            return "The download \(id) was cancelled or removed."
        case .failedEarlier(let url, let reason):
            return "Downloading \(url.absoluteString) had failed before the restart: \(reason)"
        }
    }
}
