import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches bytes for a request: URLSession by default, any loader an app plugs in.
///
/// ## Implementation requirements
/// - Return every HTTP response, whatever its status (the manager interprets 304, 4xx, 5xx);
///   throw only when no response arrived or the body could not be read completely (a transport
///   failure: `URLError` codes such as `.timedOut` and `.networkConnectionLost` are retried).
/// - Send the request's headers as given (`Range`, `If-None-Match`, `If-Range`, …).
/// - Call `progress` as bytes arrive, from any thread; stop and throw `CancellationError` (or
///   `URLError(.cancelled)`) promptly when the calling task is cancelled.
/// - Never consult an HTTP cache of its own: the manager owns caching.
public protocol DataLoading: Sendable {
    /// Loads `request` and returns the response with its whole body.
    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse
}

/// A response with its body, as a loader returns it.
public struct DataResponse: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// Response headers with lowercased names.
    public var headers: [String: String]
    /// The body.
    public var data: Data

    /// Creates a response; header names are lowercased.
    public init(url: URL, statusCode: Int, headers: [String: String], data: Data) {
        self.url = url
        self.statusCode = statusCode
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.data = data
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared `Content-Length`, if present and valid.
    public var contentLength: Int? { header("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
}

/// How much of a response has arrived.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received so far.
    public var receivedBytes: Int64
    /// Bytes expected in all, when the server said (`Content-Length`).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(receivedBytes: Int64, expectedBytes: Int64?) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// The fraction received, when the total is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
