import Foundation

/// One `Range: bytes=…` header read against a file's length, as `LocalFileLoader` answers it.
enum FileByteRange: Equatable {
    /// Serve these bytes with 206.
    case satisfiable(Range<Int>)
    /// No byte of the file is in the range: 416.
    case unsatisfiable
    /// Malformed, several ranges, or another unit: serve the whole file with 200, as servers may.
    case ignored

    /// Reads `bytes=a-b`, `bytes=a-` or `bytes=-n` (positions inclusive, as in HTTP).
    init(header: String, length: Int) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else {
            self = .ignored
            return
        }
        let spec = trimmed.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .ignored
            return
        }
        let first = parts[0].isEmpty ? nil : Int(parts[0])
        let last = parts[1].isEmpty ? nil : Int(parts[1])
        switch (first, last) {
        case (let start?, let end) where start >= 0:
            guard start < length else {
                self = .unsatisfiable
                return
            }
            let endInclusive = min(end ?? (length - 1), length - 1)
            self = endInclusive >= start ? .satisfiable(start..<(endInclusive + 1)) : .ignored
        case (nil, let suffix?) where suffix >= 0:
            self = suffix == 0 || length == 0 ? .unsatisfiable : .satisfiable(max(0, length - suffix)..<length)
        default:
            self = .ignored
        }
    }
}
