import Foundation
import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds origins, sessions and payloads for the tests; every test makes its own origin on its own port.
enum OriginTestSupport {
    /// A started origin with `resources` registered; the caller stops it.
    static func startedOrigin(_ resources: [String: Data] = [:], contentType: String = "application/octet-stream")
        throws -> SampleOrigin
    {
        let origin = SampleOrigin()
        for (path, data) in resources { origin.register(path, data: data, contentType: contentType) }
        try origin.start()
        return origin
    }

    /// A started origin with `resources` registered, and a session for it; the caller ends both with `close`.
    static func startedOriginAndSession(_ resources: [String: Data] = [:]) throws -> (SampleOrigin, URLSession) {
        (try startedOrigin(resources), makeSession())
    }

    /// Invalidates `session`, then stops `origin`: the end of a test that fetched from one through the other.
    static func close(_ origin: SampleOrigin, _ session: URLSession) {
        session.invalidateAndCancel()
        origin.stop()
    }

    /// An ephemeral session that allows many connections per host and never caches.
    ///
    /// Its idle timeout is long: a request held at a gate receives nothing until the test releases it, and
    /// a test's task can wait tens of seconds for a turn under TSan.
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 600
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// `count` bytes with a repeating, position-dependent pattern, so a wrong slice never looks right.
    static func payload(count: Int, seed: UInt8 = 7) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            var index = 0
            while index < count {
                bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &+ index / 251)
                index += 1
            }
        }
        return data
    }
}

/// The errors the test helpers throw themselves.
enum TestHelperError: Error {
    case notHTTP
}

extension URLSession {
    /// Sends a request and returns the body and the HTTP response.
    func fetch(_ url: URL, method: String = "GET", headers: [String: String] = [:]) async throws
        -> (Data, HTTPURLResponse)
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestHelperError.notHTTP }
        return (data, http)
    }
}

extension HTTPURLResponse {
    /// A header value by case-insensitive name.
    func header(_ name: String) -> String? {
        for (key, value) in allHeaderFields {
            if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
        }
        return nil
    }
}
