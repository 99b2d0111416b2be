import Foundation
import MediaAssets

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
    public func remove(for url: URL) async throws {
        try await remove(for: AssetRequest(url: url))
    }
}
