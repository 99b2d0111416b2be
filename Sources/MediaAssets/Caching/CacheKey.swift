import Foundation

/// The key of a cache entry.
///
/// A request's key is by default its absolute URL (a key factory may strip tokens); a version
/// the server gave (a content hash) becomes part of the key, so new content at the same URL is a
/// new entry. Derived entries append to the key: a styled variant is `<key>@<identifier>`, a video
/// chunk `<key>#<index>` and its record `<key>#meta`. Backends treat keys as opaque strings of any
/// length and content; none may be used as a path.
public struct CacheKey: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The key's full text.
    public let rawValue: String

    /// Creates a key from its text.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a key from a string literal, interpolations included (`"avatar-\(id)"`).
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The key of a URL's content, optionally at a server-given version; see `init(_:version:)`.
    public init(url: URL, version: String? = nil) {
        self.init(url.absoluteString, version: version)
    }

    /// A key from a URL's text and an optional server-given version: `<text> version=<version>`.
    ///
    /// The space cannot occur in an absolute URL, so a versioned key never equals the key of a URL
    /// that happens to carry a `version` query item.
    public init(_ text: String, version: String?) {
        if let version, !version.isEmpty {
            self.rawValue = text + " version=" + version
        } else {
            self.rawValue = text
        }
    }

    /// The key of a variant produced by a plugin: `<key>@<identifier>`.
    public func variant(_ identifier: String) -> CacheKey { CacheKey(rawValue + "@" + identifier) }

    /// The key of chunk `index` of this resource: `<key>#<index>`.
    public func chunk(_ index: Int) -> CacheKey { CacheKey(rawValue + "#" + String(index)) }

    /// What every chunk key and the chunk record of this resource start with: `<key>#`, for
    /// `removeEntries(.keyPrefix(_:))`. A request's key never holds `#` (the key factory drops fragments).
    public var chunkPrefix: String { rawValue + "#" }

    /// The key of this resource's chunk record: `<key>#meta`.
    public var chunkRecord: CacheKey { CacheKey(rawValue + "#meta") }

    public var description: String { rawValue }

    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension CacheKey {
    /// Whether this key belongs to the asset `asset`: it is `asset` itself, or continues it with `@`
    /// (a variant, placeholder or decoded original) or `#` (a chunk or the chunk record).
    public func isDerived(fromAsset asset: CacheKey) -> Bool {
        var keyBytes = rawValue.utf8.makeIterator()
        for byte in asset.rawValue.utf8 {
            guard keyBytes.next() == byte else { return false }
        }
        guard let separator = keyBytes.next() else { return true }
        return separator == UInt8(ascii: "@") || separator == UInt8(ascii: "#")
    }

    /// Calls `body` with the UTF-8 length of each asset key this key may belong to besides itself:
    /// its text before each `@` or `#` (`a@b#1` belongs to `a@b` and `a`), longest first, until
    /// `body` returns true; returns whether it did.
    func containsAssetPrefix(where body: (Int) -> Bool) -> Bool {
        var length = rawValue.utf8.count
        for byte in rawValue.utf8.reversed() {
            length -= 1
            if byte == UInt8(ascii: "@") || byte == UInt8(ascii: "#"), body(length) { return true }
        }
        return false
    }

    /// The key made of this key's first `length` UTF-8 bytes (a length `containsAssetPrefix` gave).
    func utf8Prefix(_ length: Int) -> CacheKey {
        CacheKey(String(decoding: rawValue.utf8.prefix(length), as: UTF8.self))
    }
}
