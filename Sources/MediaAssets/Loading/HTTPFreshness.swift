import Foundation

/// What a response's headers say about caching it.
struct HTTPFreshness {
    /// `Cache-Control: no-store`: do not persist.
    var noStore = false
    /// `Cache-Control: no-cache`: revalidate before every use.
    var noCache = false
    /// `Cache-Control: max-age` (or `s-maxage`), in seconds.
    var maxAge: TimeInterval?
    /// RFC 5861 `stale-while-revalidate`, in seconds.
    var staleWhileRevalidate: TimeInterval?
    /// RFC 5861 `stale-if-error`, in seconds.
    var staleIfError: TimeInterval?
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
                if let seconds = Self.seconds(parts) { maxAge = seconds }
            case "stale-while-revalidate":
                if let seconds = Self.seconds(parts) { staleWhileRevalidate = seconds }
            case "stale-if-error":
                if let seconds = Self.seconds(parts) { staleIfError = seconds }
            default: break
            }
        }
    }

    private static func seconds(_ parts: [String]) -> TimeInterval? {
        guard parts.count == 2,
            let seconds = TimeInterval(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        else { return nil }
        return seconds.isFinite ? max(0, seconds) : nil
    }

    /// Fills `metadata`'s freshness for a response received at `date`: fresh until its `max-age` (or
    /// the policy's default time to live), then servable stale for the response's RFC 5861 windows,
    /// or the policy's when the response names none.
    func apply(to metadata: inout CacheMetadata, receivedAt date: Date, policy: FreshnessPolicy) {
        let freshUntil = freshUntil(receivedAt: date, defaultTimeToLive: policy.defaultTimeToLive)
        metadata.freshUntil = freshUntil
        let whileRevalidating = staleWhileRevalidate ?? policy.staleWhileRevalidate
        let ifError = staleIfError ?? policy.staleIfError
        metadata.staleWhileRevalidateUntil = Self.window(after: freshUntil, whileRevalidating)
        metadata.staleIfErrorUntil = Self.window(after: freshUntil, ifError)
    }

    private static func window(after date: Date, _ seconds: TimeInterval) -> Date? {
        guard seconds > 0 else { return nil }
        return seconds.isFinite ? date + seconds : .distantFuture
    }

    /// Until when a response received at `date` is fresh: its `max-age` less the `Age` it already
    /// has, or the default time to live.
    func freshUntil(receivedAt date: Date, defaultTimeToLive: TimeInterval) -> Date {
        if noCache { return date }
        guard let maxAge else { return date + defaultTimeToLive }
        return date + max(0, maxAge - age)
    }
}

/// The freshness rules a manager stores responses with (from its configuration).
struct FreshnessPolicy: Sendable {
    var defaultTimeToLive: TimeInterval
    var staleWhileRevalidate: TimeInterval
    var staleIfError: TimeInterval
}
