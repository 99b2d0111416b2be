import Foundation

/// The key of a cache entry.
///
/// A request's key is by default its absolute URL (a key factory may strip tokens); a version
/// the server gave (a content hash) becomes part of the key, so new content at the same URL is a
/// new entry. Derived entries append to the key: a styled variant is `<key>@<identifier>`, a video
/// chunk `<key>#<index>` and its record `<key>#meta`. Backends treat keys as opaque strings of any
/// length and content; none may be used as a path.
///
/// Keys compare and hash by the UTF-8 bytes of their text, as every backend stores them. A versioned key and a
/// variant key keep their parts apart (`<text> version=<version>@<style>@<format>` is four strings), so making one
/// for a memory lookup copies no text: it is joined only when `rawValue` is read.
public struct CacheKey: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The text before any version or variant part: a request key's URL text, or the whole key.
    @usableFromInline let text: String
    /// The version and variant parts; nil for a key that is all text (most keys), which then copies, hashes and
    /// compares as one string does.
    @usableFromInline let parts: Parts?

    @usableFromInline
    struct Parts: Sendable {
        /// A server-given version, written ` version=<version>` after `text`; nil or non-empty.
        var version: String?
        /// Up to two variant identifiers, each written `@<identifier>` at the end (a style and its output
        /// format); the second is nil unless the first is set.
        var first: String?
        var second: String?
    }

    private init(text: String, version: String?, variants: (first: String?, second: String?)) {
        self.text = text
        let isText = version == nil && variants.first == nil
        self.parts = isText ? nil : Parts(version: version, first: variants.first, second: variants.second)
    }

    private var version: String? { parts?.version }
    private var variants: (first: String?, second: String?) { (parts?.first, parts?.second) }

    /// Creates a key from its text.
    public init(_ rawValue: String) { self.init(text: rawValue, version: nil, variants: (nil, nil)) }

    /// Creates a key from a string literal, interpolations included (`"avatar-\(id)"`).
    public init(stringLiteral value: String) { self.init(value) }

    /// The key of a URL's content, optionally at a server-given version; see `init(_:version:)`.
    public init(url: URL, version: String? = nil) {
        self.init(url.absoluteString, version: version)
    }

    /// A key from a URL's text and an optional server-given version: `<text> version=<version>`.
    ///
    /// The space cannot occur in an absolute URL, so a versioned key never equals the key of a URL
    /// that happens to carry a `version` query item.
    package init(_ text: String, version: String?) {
        self.init(text: text, version: version?.isEmpty == false ? version : nil, variants: (nil, nil))
    }

    /// The key's full text.
    public var rawValue: String {
        guard parts != nil else { return text }
        var joined = ""
        joined.reserveCapacity(utf8Count)
        joined += text
        if let version { joined += Self.versionSeparator + version }
        if let first = variants.first { joined += "@" + first }
        if let second = variants.second { joined += "@" + second }
        return joined
    }

    /// The key of a variant produced by a plugin: `<key>@<identifier>`.
    ///
    /// A key keeps two variant identifiers apart (an image style and the format of its variant); a third is
    /// joined to the second, which gives the same text.
    public func variant(_ identifier: String) -> CacheKey {
        guard let first = variants.first else {
            return CacheKey(text: text, version: version, variants: (identifier, nil))
        }
        let second = variants.second.map { $0 + "@" + identifier } ?? identifier
        return CacheKey(text: text, version: version, variants: (first, second))
    }

    /// The key of chunk `index` of this resource: `<key>#<index>`.
    package func chunk(_ index: Int) -> CacheKey { CacheKey(rawValue + "#" + String(index)) }

    /// What every chunk key and the chunk record of this resource start with: `<key>#`, for
    /// `removeEntries(.keyPrefix(_:))`. A request's key never holds `#` (the key factory drops fragments).
    package var chunkPrefix: String { rawValue + "#" }

    /// The key of this resource's chunk record: `<key>#meta`.
    package var chunkRecord: CacheKey { CacheKey(rawValue + "#meta") }

    public var description: String { rawValue }

    // MARK: Bytes

    private static let versionSeparator = " version="

    /// The length of the key's text in UTF-8 bytes.
    private var utf8Count: Int {
        var count = text.utf8.count
        if let version { count += Self.versionSeparator.utf8.count + version.utf8.count }
        if let first = variants.first { count += 1 + first.utf8.count }
        if let second = variants.second { count += 1 + second.utf8.count }
        return count
    }

    // Hashing and equality are inlinable for their usual case, a key that is all text, so that a dictionary's
    // lookup compares the key in its bucket in place instead of copying it to call across modules.

    @inlinable
    public func hash(into hasher: inout Hasher) {
        // The text's bytes part by part: the same stream, and so the same hash, as the joined text's.
        Self.combine(text, into: &hasher)
        guard parts != nil else { return hasher.combine(UInt8(0xFF)) }
        combineParts(into: &hasher)
    }

    @usableFromInline
    func combineParts(into hasher: inout Hasher) {
        if let version {
            Self.combine(Self.versionSeparator, into: &hasher)
            Self.combine(version, into: &hasher)
        }
        if let first = variants.first {
            hasher.combine(UInt8(ascii: "@"))
            Self.combine(first, into: &hasher)
        }
        if let second = variants.second {
            hasher.combine(UInt8(ascii: "@"))
            Self.combine(second, into: &hasher)
        }
        hasher.combine(UInt8(0xFF))
    }

    @inlinable
    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        if lhs.parts == nil, rhs.parts == nil { return sameBytes(lhs.text, rhs.text) }
        return equalParts(lhs, rhs)
    }

    @usableFromInline
    static func equalParts(_ lhs: CacheKey, _ rhs: CacheKey) -> Bool {
        // Parts of the same lengths at the same places: equal exactly when each part is.
        if lhs.text.utf8.count == rhs.text.utf8.count, lhs.version?.utf8.count == rhs.version?.utf8.count,
            lhs.variants.first?.utf8.count == rhs.variants.first?.utf8.count,
            lhs.variants.second?.utf8.count == rhs.variants.second?.utf8.count
        {
            return sameBytes(lhs.text, rhs.text) && sameBytes(lhs.version, rhs.version)
                && sameBytes(lhs.variants.first, rhs.variants.first)
                && sameBytes(lhs.variants.second, rhs.variants.second)
        }
        // The same text split elsewhere (a flat key read back from storage against a variant key).
        return lhs.utf8Count == rhs.utf8Count && lhs.bytes.elementsEqual(rhs.bytes)
    }

    /// Orders keys by the bytes of their text.
    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    @inlinable
    static func combine(_ part: String, into hasher: inout Hasher) {
        let hashed: Void? = part.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            for byte in part.utf8 { hasher.combine(byte) }
        }
    }

    @inlinable
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        let count = lhs.utf8.count
        guard count == rhs.utf8.count else { return false }
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                count == 0 || left.baseAddress == right.baseAddress
                    || memcmp(left.baseAddress!, right.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
    }

    static func sameBytes(_ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        return sameBytes(lhs, rhs)
    }

    /// The bytes of the key's text, part after part, without joining them.
    private var bytes: Bytes { Bytes(key: self) }

    private struct Bytes: Sequence, IteratorProtocol {
        let key: CacheKey
        /// The part being read: the text, the version's separator and value, each variant's `@` and identifier.
        var part = 0
        var current: String.UTF8View.Iterator

        init(key: CacheKey) {
            self.key = key
            current = key.text.utf8.makeIterator()
        }

        mutating func next() -> UInt8? {
            while true {
                if let byte = current.next() { return byte }
                part += 1
                switch part {
                case 1: current = (key.version.map { _ in CacheKey.versionSeparator } ?? "").utf8.makeIterator()
                case 2: current = (key.version ?? "").utf8.makeIterator()
                case 3: current = (key.variants.first.map { _ in "@" } ?? "").utf8.makeIterator()
                case 4: current = (key.variants.first ?? "").utf8.makeIterator()
                case 5: current = (key.variants.second.map { _ in "@" } ?? "").utf8.makeIterator()
                case 6: current = (key.variants.second ?? "").utf8.makeIterator()
                default: return nil
                }
            }
        }
    }
}

extension CacheKey {
    /// Whether this key belongs to the asset `asset`: it is `asset` itself, or continues it with `@`
    /// (a variant, placeholder or decoded original) or `#` (a chunk or the chunk record).
    package func isDerived(fromAsset asset: CacheKey) -> Bool {
        var keyBytes = bytes
        for byte in asset.bytes {
            guard keyBytes.next() == byte else { return false }
        }
        guard let separator = keyBytes.next() else { return true }
        return separator == UInt8(ascii: "@") || separator == UInt8(ascii: "#")
    }

    /// Calls `body` with the UTF-8 length of each asset key this key may belong to besides itself:
    /// its text before each `@` or `#` (`a@b#1` belongs to `a@b` and `a`), longest first, until
    /// `body` returns true; returns whether it did.
    func containsAssetPrefix(where body: (Int) -> Bool) -> Bool {
        let text = rawValue
        var length = text.utf8.count
        for byte in text.utf8.reversed() {
            length -= 1
            if byte == UInt8(ascii: "@") || byte == UInt8(ascii: "#"), body(length) { return true }
        }
        return false
    }

    /// Whether the key's text starts with `prefix`, compared by UTF-8 bytes.
    func hasPrefix(_ prefix: String) -> Bool { bytes.starts(with: prefix.utf8) }

    /// The key made of this key's first `length` UTF-8 bytes (a length `containsAssetPrefix` gave).
    func utf8Prefix(_ length: Int) -> CacheKey {
        CacheKey(String(decoding: rawValue.utf8.prefix(length), as: UTF8.self))
    }
}
