import Foundation

/// A parsed `Content-Range: bytes <first>-<last>/<total>` (or `bytes */<total>`) header.
struct ContentRange: Sendable, Hashable {
    /// The bytes the body holds; `nil` for the unsatisfied form `*/<total>`.
    var range: Range<Int>?
    /// The complete length; `nil` when the server wrote `*`.
    var total: Int?

    /// Parses the header; anything malformed is `nil`.
    init?(_ header: String?) {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let value = Int(parts[1]), value >= 0 else { return nil }
            total = value
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]),
            first >= 0, last >= first, last < Int.max
        else { return nil }
        if let total, last >= total { return nil }
        range = first..<(last + 1)
    }
}
