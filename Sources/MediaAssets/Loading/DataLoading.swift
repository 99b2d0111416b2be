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
/// - Call `progress` as bytes arrive (sampling is fine), from any thread; stop and throw `CancellationError`
///   (or `URLError(.cancelled)`) promptly when the calling task is cancelled, or return the response when its
///   whole body had already arrived (the manager keeps bytes its askers left).
/// - Never consult an HTTP cache of its own: the manager owns caching.
/// - `stream(_:)` returns once the response head arrived and passes the body on piece by piece, in
///   order, as it arrives; a body cut short ends the stream with an error, never quietly. The default
///   implementation loads the whole body with `load(_:progress:)` and passes it on as one piece.
/// - The manager calls the `policy:` forms with its ``FetchPolicy``. A loader that follows redirects
///   should check each hop under it before connecting (``URLSessionLoader`` does, and pins `http` connections
///   to the checked address). The default implementations check the requested URL (scheme, host, resolved
///   addresses) before calling `load(_:progress:)` or `stream(_:)`, and the URL that answered after: a
///   redirect such a loader followed by itself is refused only once it answered.
public protocol DataLoading: Sendable {
    /// Loads `request` and returns the response with its whole body.
    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse

    /// Loads `request` and returns as soon as the response head arrived; the body follows in
    /// `StreamedResponse.body` as it arrives, so a reader can use the first bytes before the last
    /// ones are in. Ending the iteration of the body (or cancelling the task that iterates it) cancels
    /// the transfer.
    func stream(_ request: URLRequest) async throws -> StreamedResponse

    /// Loads `request` as `load(_:progress:)` does, making only the connections `policy` allows.
    ///
    /// - Throws: `AssetsError.fetchRefused` for a connection the policy refuses, or what `load(_:progress:)`
    ///   throws.
    func load(
        _ request: URLRequest, policy: FetchPolicy, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse

    /// Streams `request` as `stream(_:)` does, making only the connections `policy` allows.
    ///
    /// - Throws: `AssetsError.fetchRefused` for a connection the policy refuses, or what `stream(_:)` throws.
    func stream(_ request: URLRequest, policy: FetchPolicy) async throws -> StreamedResponse
}

extension DataLoading {
    /// Loads the whole body with `load(_:progress:)` and passes it on as one piece.
    public func stream(_ request: URLRequest) async throws -> StreamedResponse {
        let response = try await load(request, progress: nil)
        let body = AsyncThrowingStream<Data, Error> { continuation in
            if !response.data.isEmpty { continuation.yield(response.data) }
            continuation.finish()
        }
        return StreamedResponse(
            head: ResponseHead(url: response.url, statusCode: response.statusCode, headers: response.headers),
            body: ResponseBody(body)
        )
    }

    /// Checks the requested URL under `policy`, loads it with `load(_:progress:)`, then checks the URL that
    /// answered when the loader followed redirects (after the fact: a loader of its own cannot be stopped
    /// before it connects).
    public func load(
        _ request: URLRequest, policy: FetchPolicy, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        if let url = request.url { _ = try await policy.admit(url) }
        let response = try await load(request, progress: progress)
        if response.url != request.url { _ = try await policy.admit(response.url) }
        return response
    }

    /// Checks the requested URL under `policy`, streams it with `stream(_:)`, then checks the URL that
    /// answered when the loader followed redirects (after the fact, before any body piece is read).
    public func stream(_ request: URLRequest, policy: FetchPolicy) async throws -> StreamedResponse {
        if let url = request.url { _ = try await policy.admit(url) }
        let response = try await stream(request)
        if response.head.url != request.url { _ = try await policy.admit(response.head.url) }
        return response
    }
}

/// The status line and headers of a response, without its body.
public struct ResponseHead: Sendable, Hashable {
    /// The URL that answered (after redirects).
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// Response headers with lowercased names.
    public var headers: [String: String]

    /// Creates a response head; header names are lowercased.
    public init(url: URL, statusCode: Int, headers: [String: String]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared `Content-Length`, if present and valid.
    package var contentLength: Int? {
        header("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// A response whose body arrives piece by piece, as `DataLoading.stream(_:)` returns it.
public struct StreamedResponse: Sendable {
    /// The status line and headers.
    public var head: ResponseHead
    /// The body's pieces in order; it ends with an error when the transfer fails or is cut short.
    public var body: ResponseBody

    /// Creates a streamed response.
    public init(head: ResponseHead, body: ResponseBody) {
        self.head = head
        self.body = body
    }
}

/// The body of a `StreamedResponse`: its pieces in order, as they arrive.
///
/// Iterate it once. Leaving the iteration before the end (a `break`, a thrown error, a cancelled task)
/// cancels the transfer. Checks added with `checking(piece:end:failure:)` run on the reader's task as each
/// piece is taken, with no task or hop of their own.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error

    /// A check run on every piece (it may throw to end the body) and one run when the body ends.
    fileprivate struct Check: Sendable {
        var piece: @Sendable (Data) throws -> Void
        var end: @Sendable () throws -> Void
        var failure: @Sendable (any Error) -> any Error
    }

    private let pieces: AsyncThrowingStream<Data, Error>
    private let checks: [Check]
    private let abandon: (@Sendable () -> Void)?

    /// Wraps a stream of pieces.
    ///
    /// - Parameters:
    ///   - pieces: the body's pieces; finishing the stream ends the body, failing it fails the body.
    ///   - abandon: called when a reader leaves the iteration before the end, to cancel the transfer.
    public init(_ pieces: AsyncThrowingStream<Data, Error>, abandon: (@Sendable () -> Void)? = nil) {
        self.init(pieces: pieces, checks: [], abandon: abandon)
    }

    private init(pieces: AsyncThrowingStream<Data, Error>, checks: [Check], abandon: (@Sendable () -> Void)?) {
        self.pieces = pieces
        self.checks = checks
        self.abandon = abandon
    }

    /// The same body with `piece` run on every piece and `end` when it ends (either may throw to fail it),
    /// and the transfer's own errors passed through `failure`.
    package func checking(
        piece: @escaping @Sendable (Data) throws -> Void, end: @escaping @Sendable () throws -> Void = {},
        failure: @escaping @Sendable (any Error) -> any Error = { $0 }
    ) -> ResponseBody {
        ResponseBody(
            pieces: pieces, checks: checks + [Check(piece: piece, end: end, failure: failure)], abandon: abandon)
    }

    /// Reads the whole body into one buffer.
    public func collect() async throws -> Data {
        var data = Data()
        for try await piece in self { data.append(piece) }
        return data
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: pieces.makeAsyncIterator(), checks: checks, lease: Lease(abandon: abandon))
    }

    /// Calls `abandon` when the last copy of an iterator goes away before the body ended.
    fileprivate final class Lease {
        let abandon: (@Sendable () -> Void)?
        var isEnded = false

        init(abandon: (@Sendable () -> Void)?) { self.abandon = abandon }

        deinit { if !isEnded { abandon?() } }
    }

    /// Takes the pieces in order, running the checks on each.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncThrowingStream<Data, Error>.AsyncIterator
        private let checks: [Check]
        private let lease: Lease

        fileprivate init(base: AsyncThrowingStream<Data, Error>.AsyncIterator, checks: [Check], lease: Lease) {
            self.base = base
            self.checks = checks
            self.lease = lease
        }

        public mutating func next() async throws -> Data? {
            let next: Data?
            do {
                next = try await base.next()
            } catch {
                // The transfer ended with its own error: nothing is left to cancel.
                lease.isEnded = true
                throw checks.reduce(error) { error, check in check.failure(error) }
            }
            // A check that throws leaves the transfer running: the lease cancels it when the iterator goes.
            guard let piece = next else {
                lease.isEnded = true
                for check in checks { try check.end() }
                return nil
            }
            for check in checks { try check.piece(piece) }
            return piece
        }
    }
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
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared `Content-Length`, if present and valid.
    package var contentLength: Int? {
        header("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The status line and headers, without the body.
    package var head: ResponseHead { ResponseHead(url: url, statusCode: statusCode, headers: headers) }
}

/// How much of a response has arrived.
public struct FetchProgress: Sendable, Hashable {
    /// Bytes received so far.
    public var receivedBytes: Int64
    /// Bytes expected in all, when the server said (`Content-Length`).
    public var expectedBytes: Int64?
    /// The body bytes that arrived with this report (they end at `receivedBytes`), when the download streams
    /// its body to askers that want its pieces (previews); `nil` otherwise.
    public var piece: Data?

    /// Creates a progress value.
    public init(receivedBytes: Int64, expectedBytes: Int64?, piece: Data? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.piece = piece
    }

    /// The fraction received, when the total is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
