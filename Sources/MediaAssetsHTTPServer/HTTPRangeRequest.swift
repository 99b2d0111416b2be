import Foundation

/// How a `Range` request header applies to a representation of a given length (RFC 9110, section 14).
package enum HTTPRangeRequest: Sendable, Hashable {
    /// Send the whole representation with 200 (no header, a syntax a server may ignore, or several ranges).
    case whole
    /// Send these bytes with 206; a range running past the end is clamped to it, as HTTP reads it.
    case partial(Range<Int>)
    /// No requested range overlaps the representation: 416 with `Content-Range: bytes */<length>`.
    case unsatisfiable

    /// Resolves `header` (for example `bytes=0-99`, `bytes=500-`, `bytes=-100`) against `length` bytes.
    package init(header: String?, length: Int) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let specs = trimmed.dropFirst("bytes=".count)
        // Several ranges would need multipart/byteranges; RFC 9110 lets a server answer 200 instead.
        guard !specs.contains(",") else {
            self = .whole
            return
        }
        let spec = specs.trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            guard let suffixLength = Self.position(lastText) else {
                self = .whole
                return
            }
            guard suffixLength > 0, length > 0 else {
                self = .unsatisfiable
                return
            }
            self = .partial(max(0, length - suffixLength)..<length)
            return
        }
        guard let first = Self.position(firstText) else {
            self = .whole
            return
        }
        var last = length - 1
        if !lastText.isEmpty {
            guard let requestedLast = Self.position(lastText), requestedLast >= first else {
                self = .whole
                return
            }
            last = min(requestedLast, length - 1)
        }
        guard first < length else {
            self = .unsatisfiable
            return
        }
        self = .partial(first..<(last + 1))
    }

    /// Parses a decimal byte position; positions too big for `Int` saturate instead of trapping.
    private static func position(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text) ?? Int.max
    }
}
