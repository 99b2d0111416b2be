import Foundation

/// What a video resource is: its length, type and validators, as the origin first described them.
public struct VideoContentInfo: Sendable, Hashable, Codable {
    /// The total length in bytes.
    public var length: Int
    /// The `Content-Type` the origin sent, if any.
    public var contentType: String?
    /// The `ETag` the origin sent, if any.
    public var etag: String?
    /// The `Last-Modified` the origin sent (as written), if any.
    public var lastModified: String?

    /// Creates content info.
    public init(length: Int, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.length = length
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The `If-Range` value: a strong ETag, else Last-Modified (a weak ETag cannot be used there).
    var rangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// Whether `other` (from a full 200 response) is different content than `self`.
    ///
    /// Without any validator only the length can tell, so an equal length counts as the same content.
    func isDifferent(from other: VideoContentInfo) -> Bool {
        if other.length != length { return true }
        if let etag { return other.etag != etag }
        if let lastModified { return other.lastModified != lastModified }
        return false
    }
}
