import Foundation

/// What a response's headers say about caching it.
struct HTTPFreshness {
    /// `Cache-Control: no-store`: do not persist.
    var noStore = false
    /// `Cache-Control: no-cache`: revalidate before every use.
    var noCache = false
    /// `Cache-Control: max-age` (or `s-maxage`), in seconds.
    var maxAge: TimeInterval?

    init(headers: [String: String]) {
        guard let cacheControl = headers["cache-control"] else { return }
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age", "s-maxage":
                if parts.count == 2, let seconds = TimeInterval(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
                    maxAge = max(0, seconds)
                }
            default: break
            }
        }
    }

    /// Until when a response received at `date` is fresh.
    func freshUntil(receivedAt date: Date, defaultTimeToLive: TimeInterval) -> Date {
        if noCache { return date }
        return date + (maxAge ?? defaultTimeToLive)
    }
}
