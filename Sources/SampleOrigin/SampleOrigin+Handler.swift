import Foundation
import MediaAssetsHTTPServer

extension SampleOrigin {
    /// A request for a path no resource is registered at, as a ``Handler`` sees it.
    package struct HandledRequest: Sendable {
        /// `GET` or `HEAD`.
        package var method: String
        /// The target exactly as sent (path and query).
        package var target: String
        /// The percent-decoded path without the query.
        package var path: String
        /// The header fields, names lowercased.
        package var headers: [String: String]

        /// How the request's `Range` header applies to a body of `length` bytes: `nil` for the whole
        /// body (no header, another unit, several ranges), an empty range when unsatisfiable (416).
        package func byteRange(forLength length: Int) -> Range<Int>? {
            switch HTTPRangeRequest(header: headers["range"], length: length) {
            case .whole: return nil
            case .partial(let range): return range
            case .unsatisfiable: return length..<length
            }
        }
    }

    /// What a ``Handler`` answers: status, header fields (`Content-Length` is added) and body.
    package struct HandledResponse: Sendable {
        /// The HTTP status.
        package var status: Int
        /// Header fields in sending order, without `Content-Length` and `Connection`.
        package var headers: [(name: String, value: String)]
        /// The body (not sent for HEAD).
        package var body: Data

        /// Creates a response.
        package init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A short plain-text answer (errors).
        package static func text(status: Int, _ message: String) -> HandledResponse {
            let body = Data((message + "\n").utf8)
            return HandledResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: body)
        }
    }

    /// Answers requests for unregistered paths; it runs on the server's thread, so it must not block.
    package typealias Handler = @Sendable (HandledRequest) -> HandledResponse

    /// Makes `handler` answer every request for a path no resource is registered at (instead of 404);
    /// `nil` restores 404. The answer is logged and shaped by the path's behaviour like a resource's.
    /// (A server of its own, such as a caching proxy, uses `MediaAssetsHTTPServer` directly.)
    package func setHandler(_ handler: Handler?) {
        state.withLock { $0.handler = handler }
    }

    /// At most this many connections are served at once; one more is answered 503 and closed.
    package var maximumConnections: Int {
        get { server.maximumConnections }
        set { server.maximumConnections = newValue }
    }

    /// The plan for a handler's answer.
    static func plan(for response: HandledResponse) -> ResponsePlan {
        ResponsePlan(
            status: response.status, headers: response.headers, body: response.body,
            bodyRange: 0..<response.body.count, carriesResourceBody: (200..<300).contains(response.status)
        )
    }
}
