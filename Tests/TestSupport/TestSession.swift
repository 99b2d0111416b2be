import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// The session tests read through when they play a client (a player asking a proxy for bytes): ephemeral, no
    /// cache, many connections per host, and ten minutes before a request times out.
    ///
    /// `URLSession.shared` gives up after 60 s without a byte, less than the suite's 90 s waits: on a busy machine
    /// a request the test is about to release, or one whose answer waits for a turn on the cooperative pool, failed
    /// with `NSURLErrorDomain -1001` before the test's own bound. No test reads through `URLSession.shared`.
    public static let forTesting: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForRequest = 600
        configuration.timeoutIntervalForResource = 3600
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
}
