import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how long to wait before trying a failed fetch again.
///
/// Only transient failures are retried: timeouts, lost or refused connections, 5xx, 408 and 429
/// (waiting as long as a `Retry-After` asks, in seconds or as an HTTP date, up to `maxDelay`). Other 4xx
/// never are. Delays grow exponentially with full jitter: a random wait between 0 and
/// `min(maxDelay, baseDelay * 2^attempt)`.
///
/// A download waiting to retry holds none of the manager's download slots: it leaves its slot for the wait
/// and queues again at its ask's priority (which may have changed meanwhile).
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts in all (1 means no retry).
    public var maxAttempts: Int
    /// The delay ceiling of the first retry, in seconds.
    public var baseDelay: TimeInterval
    /// The longest single wait, in seconds.
    public var maxDelay: TimeInterval

    /// Creates a policy; the default makes up to 3 attempts from a 0.25 s base.
    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 0.25, maxDelay: TimeInterval = 10) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Whether an HTTP status is worth another attempt.
    package static func isTransient(status: Int) -> Bool {
        status == 429 || status == 408 || (500...599).contains(status)
    }

    /// Whether a loader error is worth another attempt.
    package static func isTransient(_ error: Error) -> Bool {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
                .dnsLookupFailed, .cannotFindHost, .resourceUnavailable:
                return true
            case .unknown:
                // FoundationNetworking reports curl's "transfer closed with N bytes remaining"
                // (a connection lost mid-body) as .unknown; attempts are bounded, so retry it.
                return true
            default:
                return false
            }
        }
        if case AssetsError.lengthMismatch = error { return true }
        return false
    }

    /// The wait a response's `Retry-After` asks for (RFC 9110 §10.2.3): delay-seconds, or an HTTP date less
    /// the response's `Date` (less `now` without one); `nil` when absent or invalid.
    static func retryAfter(_ value: String?, date: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = HTTPFreshness.deltaSeconds(value) { return seconds }
        guard let retryDate = HTTPDate.parse(value, now: now) else { return nil }
        let sent = date.flatMap { HTTPDate.parse($0.trimmingCharacters(in: .whitespaces), now: now) } ?? now
        return max(0, retryDate.timeIntervalSince(sent))
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1), honouring `Retry-After`.
    func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter { return min(maxDelay, max(0, retryAfter)) }
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
        return Double.random(in: 0...max(ceiling, 0))
    }
}
