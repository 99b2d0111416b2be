import Foundation
import MediaAssets

/// Errors of HLS playlists, segments and downloads. A fetch that fails is the manager's `AssetsError`, as from
/// every util.
public enum HLSError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The playlist at `url` is not valid RFC 8216 at `line` (1-based) for `reason`.
    case malformedPlaylist(url: URL, line: Int, reason: String)
    /// A master playlist was found where a media playlist is needed (or the reverse).
    case unexpectedPlaylistKind(url: URL, expected: String)
    /// A segment's `EXT-X-BYTERANGE` was answered with `receivedBytes` bytes.
    case byteRangeMismatch(url: URL, expected: Range<Int>, receivedBytes: Int)
    /// Writing a downloaded file failed (disk full, no permission).
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .malformedPlaylist(let url, let line, let reason):
            return "The playlist \(url.absoluteString) is malformed at line \(line): \(reason)."
        case .unexpectedPlaylistKind(let url, let expected):
            return "\(url.absoluteString) is not a \(expected) playlist."
        case .byteRangeMismatch(let url, let expected, let receivedBytes):
            return "The server sent \(receivedBytes) bytes for bytes \(expected.lowerBound)-\(expected.upperBound - 1)"
                + " of \(url.absoluteString); nothing was cached."
        case .writeFailed(let path, let reason):
            return "Could not write \(path): \(reason). Check the free space and permissions of its directory."
        }
    }

    public var errorDescription: String? { description }
}
