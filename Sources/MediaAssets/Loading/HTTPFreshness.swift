import Foundation

/// What a response's headers say about caching it.
struct HTTPFreshness {
    /// `Cache-Control: no-store`: do not persist.
    var noStore = false
    /// `Cache-Control: no-cache`: revalidate before every use.
    var noCache = false
    /// `Cache-Control: max-age` (or `s-maxage`), in seconds.
    var maxAge: TimeInterval?
    /// `Age`: how long a shared cache had held the response, in seconds.
    var age: TimeInterval = 0

    init(headers: [String: String]) {
        if let age = headers["age"].flatMap({ TimeInterval($0.trimmingCharacters(in: .whitespaces)) }), age > 0 {
            self.age = age
        }
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

    /// Until when a response received at `date` is fresh: its `max-age` less the `Age` it already
    /// has, or the default time to live.
    func freshUntil(receivedAt date: Date, defaultTimeToLive: TimeInterval) -> Date {
        if noCache { return date }
        guard let maxAge else { return date + defaultTimeToLive }
        return date + max(0, maxAge - age)
    }
}
