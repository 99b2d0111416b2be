import Foundation

/// An HTTP entity tag (RFC 9110 §8.8.3): the validator a service sends as `ETag` and compares with a
/// client's `If-None-Match` to answer 304 Not Modified.
///
/// A strong tag changes whenever the bytes change; a weak one (`W/"…"`) only promises equivalent content.
/// `If-None-Match` compares weakly (the opaque tags match, either may be weak); `If-Match` and `If-Range`
/// compare strongly (both strong, same opaque tag). A stored variant's tag is strong: a hash of its bytes
/// of its bytes, kept in its metadata's `etag`; its `description` is the header's value.
///
/// ```swift
/// let encoded = try await images.encodedImage(for: url, style: .circle(diameter: 96), format: .webp(quality: 80))
/// if encoded.isNotModified(ifNoneMatch: request.header("If-None-Match")) { return .notModified }
/// ```
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The characters between the quotes.
    package let opaqueTag: String
    /// Whether the tag is weak (`W/` prefix).
    package let isWeak: Bool

    /// A tag of `opaqueTag` (without quotes), or `nil` when it holds a character RFC 9110 does not allow there
    /// (a quote, a control character, a space).
    package init?(opaqueTag: String, isWeak: Bool = false) {
        guard opaqueTag.utf8.allSatisfy(Self.isTagCharacter) else { return nil }
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// Parses one header value: `"xyzzy"` or `W/"xyzzy"`, with optional surrounding spaces; `nil` otherwise.
    package init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let tag = scanner.entityTag() else { return nil }
        scanner.skipSpaces()
        guard scanner.isAtEnd else { return nil }
        self = tag
    }

    private init(validated opaqueTag: String, isWeak: Bool) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// A strong tag naming `data` by its content: 16 hexadecimal digits of its 64-bit xxHash. Two byte
    /// strings that differ get different tags, short of a collision no real change will hit.
    package static func strong(hashing data: Data) -> EntityTag {
        let hash = data.withUnsafeBytes { XXHash64.hash($0) }
        let digits = String(hash, radix: 16)
        return EntityTag(validated: String(repeating: "0", count: 16 - digits.count) + digits, isWeak: false)
    }

    /// The header form: `"xyzzy"` or `W/"xyzzy"`.
    public var description: String { (isWeak ? "W/\"" : "\"") + opaqueTag + "\"" }

    /// RFC 9110 strong comparison: both tags strong, same opaque tag (for `If-Match`, `If-Range`).
    package func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// RFC 9110 weak comparison: the same opaque tag, whether either is weak (for `If-None-Match`).
    package func matchesWeakly(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }

    /// Whether a GET or HEAD carrying `If-None-Match: header` is answered 304 Not Modified for a representation
    /// with this tag (RFC 9110 §13.1.2): `*`, or a listed tag that matches this one weakly. A missing or
    /// malformed header never matches (the request is served in full).
    package func isNotModified(ifNoneMatch header: String?) -> Bool {
        guard let header, let condition = EntityTagCondition(header) else { return false }
        switch condition {
        case .any: return true
        case .tags(let tags): return tags.contains { $0.matchesWeakly(self) }
        }
    }

    /// Whether a request carrying `If-Match: header` may proceed for a representation with this tag (RFC 9110
    /// §13.1.1): `*`, or a listed tag that matches this one strongly. A missing header lets it proceed; a
    /// malformed one does not.
    package func satisfies(ifMatch header: String?) -> Bool {
        guard let header else { return true }
        switch EntityTagCondition(header) {
        case .any?: return true
        case .tags(let tags)?: return tags.contains { $0.matchesStrongly(self) }
        case nil: return false
        }
    }

    /// etagc: `!`, `#`–`~`, and obs-text (bytes ≥ 0x80).
    fileprivate static func isTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80
    }
}

/// The value of an `If-None-Match` or `If-Match` header: `*`, or a list of entity tags (RFC 9110 §13.1).
package enum EntityTagCondition: Sendable, Hashable {
    /// `*`: any current representation.
    case any
    /// The listed tags, in order.
    case tags([EntityTag])

    /// Parses a header value (`*`, or entity tags separated by commas and optional spaces, empty elements
    /// allowed as RFC 9110 §5.6.1 says); `nil` when it is neither.
    package init?(_ header: String) {
        var scanner = EntityTag.Scanner(Array(header.utf8))
        scanner.skipSpaces()
        if scanner.consume(UInt8(ascii: "*")) {
            scanner.skipSpaces()
            guard scanner.isAtEnd else { return nil }
            self = .any
            return
        }
        var tags: [EntityTag] = []
        while true {
            scanner.skipSpacesAndCommas()
            if scanner.isAtEnd { break }
            guard let tag = scanner.entityTag() else { return nil }
            tags.append(tag)
            scanner.skipSpaces()
            guard scanner.isAtEnd || scanner.consume(UInt8(ascii: ",")) else { return nil }
        }
        guard !tags.isEmpty else { return nil }
        self = .tags(tags)
    }
}

extension EntityTag {
    /// Reads entity tags from a header's bytes.
    fileprivate struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { offset == bytes.count }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard offset < bytes.count, bytes[offset] == byte else { return false }
            offset += 1
            return true
        }

        mutating func skipSpaces() {
            while offset < bytes.count, bytes[offset] == 0x20 || bytes[offset] == 0x09 { offset += 1 }
        }

        mutating func skipSpacesAndCommas() {
            while offset < bytes.count, [0x20, 0x09, UInt8(ascii: ",")].contains(bytes[offset]) { offset += 1 }
        }

        /// `[W/]"etagc*"`, or `nil` (the offset is then unspecified).
        mutating func entityTag() -> EntityTag? {
            var isWeak = false
            if consume(UInt8(ascii: "W")) {
                guard consume(UInt8(ascii: "/")) else { return nil }
                isWeak = true
            }
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = offset
            while offset < bytes.count, EntityTag.isTagCharacter(bytes[offset]) { offset += 1 }
            let end = offset
            guard consume(UInt8(ascii: "\"")) else { return nil }
            // obs-text may not be valid UTF-8; such a tag is kept byte for byte as Latin-1 would read it.
            let tag =
                String(validating: bytes[start..<end], as: UTF8.self)
                ?? String(bytes[start..<end].map { Character(Unicode.Scalar($0)) })
            return EntityTag(validated: tag, isWeak: isWeak)
        }
    }
}

/// Feeds arbitrary bytes, as header text, to the entity-tag parsers: each must return or refuse, never crash, and
/// a parsed tag must read back from its own header form.
///
/// The libFuzzer entry point of the parsers (see `Fuzz/`).
@_spi(Fuzzing) public func fuzzEntityTag(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    if let tag = EntityTag(text) {
        precondition(EntityTag(tag.description) == tag, "\(tag) does not read back")
        _ = tag.isNotModified(ifNoneMatch: text)
        _ = tag.satisfies(ifMatch: text)
    }
    if case .tags(let tags)? = EntityTagCondition(text) {
        for tag in tags { precondition(EntityTag(tag.description) == tag, "\(tag) does not read back") }
    }
}
