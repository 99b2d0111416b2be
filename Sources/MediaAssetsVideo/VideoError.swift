import Foundation
import MediaAssets

/// Errors of `VideoUtil`: bad ranges, and responses that do not fit what was asked. A fetch that fails
/// (transport, HTTP status, a body cut short) is the manager's `AssetsError`, as from every util.
///
/// Whenever one of these is thrown for a response, nothing from that response was cached.
public enum VideoError: Equatable, MediaAssetsError {
    /// The requested range is empty or reaches outside the resource's `length` bytes.
    case invalidRange(url: URL, requested: Range<Int>, length: Int)
    /// A 206 answered with a `Content-Range` other than the one requested (`actual` is the header as sent).
    case contentRangeMismatch(url: URL, expected: Range<Int>, actual: String?)
    /// The body of a range response is shorter or longer than the range.
    case shortBody(url: URL, expected: Range<Int>, receivedBytes: Int)
    /// The resource's total length changed while its validators said it had not.
    case lengthChanged(url: URL, expected: Int, actual: Int)
    /// The resource changed at the origin after a stream had already delivered some of the old bytes.
    case resourceChanged(url: URL)
    /// The video proxy could not start serving: it already runs, or no loopback port or thread could be had.
    case proxyUnavailable(reason: String)
    /// FFmpeg's libraries, which decode video stills, could not be loaded: install `debianPackage`.
    case decoderMissing(library: String, debianPackage: String, reason: String)
    /// No still could be taken from the video at `url` (a damaged or unsupported file, or no frame at that time).
    case frameUnavailable(url: URL, reason: String)
    /// Taking a still from the video at `url` would pass one of `VideoFrameOptions`' limits.
    case frameLimitExceeded(url: URL, reason: String)

    public var description: String {
        switch self {
        case .invalidRange(let url, let requested, let length):
            return "The range \(Self.text(requested)) of \(url.absoluteString) is empty or outside its "
                + "\(length) bytes."
        case .contentRangeMismatch(let url, let expected, let actual):
            return "The server answered \(url.absoluteString) with Content-Range \(actual ?? "(none)") where "
                + "bytes \(Self.text(expected)) were asked; nothing was cached."
        case .shortBody(let url, let expected, let receivedBytes):
            return "The server sent \(receivedBytes) bytes for bytes \(Self.text(expected)) of "
                + "\(url.absoluteString); nothing was cached."
        case .lengthChanged(let url, let expected, let actual):
            return "The length of \(url.absoluteString) changed from \(expected) to \(actual) bytes under the "
                + "same validators; nothing was cached."
        case .resourceChanged(let url):
            return "\(url.absoluteString) changed at the origin while it was being read; read it again."
        case .proxyUnavailable(let reason):
            return "The video proxy could not start: \(reason)"
        case .decoderMissing(let library, let debianPackage, let reason):
            return "Video stills need FFmpeg's \(library), which could not be loaded (\(reason)); install the "
                + "Debian package \(debianPackage)."
        case .frameUnavailable(let url, let reason):
            return "No still could be taken from \(url.absoluteString): \(reason); nothing was cached."
        case .frameLimitExceeded(let url, let reason):
            return "A still of \(url.absoluteString) was refused: \(reason); raise the limit in VideoFrameOptions "
                + "if the file is trusted."
        }
    }

    /// A byte range as HTTP writes it (inclusive end), or "(empty)".
    private static func text(_ range: Range<Int>) -> String {
        range.isEmpty ? "(empty at \(range.lowerBound))" : "\(range.lowerBound)-\(range.upperBound - 1)"
    }
}

/// Errors of HLS playlists, segments and downloads. A fetch that fails is the manager's `AssetsError`, as from
/// every util.
public enum HLSError: Equatable, MediaAssetsError {
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
}
