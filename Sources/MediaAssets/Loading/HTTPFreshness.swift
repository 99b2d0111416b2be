import Foundation

/// What a response's headers say about caching it (RFC 9111, with RFC 5861's stale windows).
///
/// Freshness comes from `Cache-Control: max-age` (or `s-maxage`), else from `Expires` less the response's
/// `Date` (§5.3: an `Expires` that is not a valid HTTP date means already expired), else from the manager's
/// default time to live; `Age` is subtracted from the first two. `Vary` is read by ``HTTPVary``.
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
    /// `Expires`, when the response has one.
    var expires: Expires?
    /// `Date`: when the origin generated the response, if valid.
    var date: Date?

    /// The largest delta-seconds value kept; RFC 9111 §1.2.2 reads anything larger as 2^31.
    static let deltaSecondsCeiling: TimeInterval = 2_147_483_648

    init(headers: [String: String], now: Date = Date()) {
        if let age = headers["age"].flatMap(Self.deltaSeconds), age > 0 {
            self.age = age
        }
        if let expires = headers["expires"] {
            self.expires =
                HTTPDate.parse(expires.trimmingCharacters(in: .whitespaces), now: now).map(Expires.at) ?? .invalid
        }
        date = headers["date"].flatMap { HTTPDate.parse($0.trimmingCharacters(in: .whitespaces), now: now) }
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

    /// A directive's delta-seconds argument (quotes allowed, as senders write `max-age="60"`).
    private static func seconds(_ parts: [String]) -> TimeInterval? {
        guard parts.count == 2 else { return nil }
        return deltaSeconds(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
    }

    /// RFC 9111 delta-seconds: one or more digits and nothing else, capped at 2^31.
    static func deltaSeconds(_ text: String) -> TimeInterval? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        // Digits only, so the one way to fail is overflow: the ceiling.
        return min(TimeInterval(digits) ?? deltaSecondsCeiling, deltaSecondsCeiling)
    }

    /// Fills `metadata`'s freshness for a response received at `date`: fresh until its `max-age` or
    /// `Expires` (or the policy's default time to live), then servable stale for the response's RFC 5861
    /// windows, or the policy's when the response names none.
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

    /// Until when a response received at `receivedAt` is fresh (RFC 9111 §4.2.1): its `max-age` less the
    /// `Age` it already has; else its `Expires` less its `Date` (the time it was received when it has none),
    /// less `Age`; else the default time to live.
    func freshUntil(receivedAt: Date, defaultTimeToLive: TimeInterval) -> Date {
        if noCache { return receivedAt }
        if let maxAge { return receivedAt + max(0, maxAge - age) }
        switch expires {
        case .at(let expires)?:
            let lifetime = expires.timeIntervalSince(date ?? receivedAt)
            return receivedAt + max(0, lifetime - age)
        case .invalid?:
            return receivedAt
        case nil:
            return receivedAt + defaultTimeToLive
        }
    }

    /// An `Expires` header's value.
    enum Expires: Equatable {
        /// A valid HTTP date.
        case at(Date)
        /// Not a valid HTTP date ("0", "-1", anything malformed): already expired.
        case invalid
    }
}

/// The freshness rules a manager stores responses with (from its configuration).
struct FreshnessPolicy: Sendable {
    var defaultTimeToLive: TimeInterval
    var staleWhileRevalidate: TimeInterval
    var staleIfError: TimeInterval
}
