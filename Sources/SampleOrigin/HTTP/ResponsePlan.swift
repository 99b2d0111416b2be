import Foundation
import MediaAssetsHTTPServer

/// What to answer to one request: status, headers and which bytes of which body to send.
///
/// Built by the pure functions below, so the HTTP rules (conditionals, ranges) stay apart from the socket
/// code. Body rules of a ``SampleOrigin/Behavior`` apply only when `carriesResourceBody` is set.
struct ResponsePlan: Sendable {
    var status: Int
    /// Header fields in sending order, without `Content-Length` and `Connection` (the writer adds them).
    var headers: [(name: String, value: String)]
    var body: Data
    var bodyRange: Range<Int>
    /// Whether the body is the resource's bytes (200/206), so faults like a wrong length apply.
    var carriesResourceBody: Bool
    /// Whether `Content-Length` is sent (304 answers carry none).
    var declaresLength = true

    /// A short text answer such as 404, 400 or an injected failure.
    static func text(status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> ResponsePlan {
        let body = Data((message + "\n").utf8)
        return ResponsePlan(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: body,
            bodyRange: 0..<body.count,
            carriesResourceBody: false
        )
    }

    /// The answer for a GET or HEAD of `resource`: 200, 206, 304 or 416.
    static func serving(
        _ resource: OriginResource,
        for request: HTTPRequest,
        honoursRange: Bool
    ) -> ResponsePlan {
        var validators: [(name: String, value: String)] = [
            ("ETag", resource.etag),
            ("Last-Modified", HTTPDate.format(resource.lastModified)),
        ]
        if let cacheControl = resource.cacheControl { validators.append(("Cache-Control", cacheControl)) }
        if isNotModified(resource, request: request) {
            return ResponsePlan(
                status: 304, headers: validators, body: Data(), bodyRange: 0..<0,
                carriesResourceBody: false, declaresLength: false)
        }
        let length = resource.data.count
        var headers: [(name: String, value: String)] = [("Content-Type", resource.contentType)]
        headers += validators
        if honoursRange { headers.append(("Accept-Ranges", "bytes")) }
        var range = HTTPRangeRequest.whole
        if honoursRange, request.headers["range"] != nil, ifRangeHolds(resource, request: request) {
            range = HTTPRangeRequest(header: request.headers["range"], length: length)
        }
        switch range {
        case .whole:
            return ResponsePlan(
                status: 200, headers: headers, body: resource.data, bodyRange: 0..<length,
                carriesResourceBody: true)
        case let .partial(bytes):
            headers.append(("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(length)"))
            return ResponsePlan(
                status: 206, headers: headers, body: resource.data, bodyRange: bytes,
                carriesResourceBody: true)
        case .unsatisfiable:
            return .text(
                status: 416, "range not satisfiable",
                headers: validators + [
                    ("Content-Range", "bytes */\(length)")
                ])
        }
    }

    /// RFC 9110 13.2.2: If-None-Match wins over If-Modified-Since; both compare against the current state.
    private static func isNotModified(_ resource: OriginResource, request: HTTPRequest) -> Bool {
        if let noneMatch = request.headers["if-none-match"] {
            let tags = noneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains("*") || tags.contains { weakTag($0) == weakTag(resource.etag) }
        }
        if let modifiedSince = request.headers["if-modified-since"], let since = HTTPDate.parse(modifiedSince) {
            return resource.lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    /// RFC 9110 13.1.5: the range applies only when If-Range matches strongly (ETag) or exactly (date).
    private static func ifRangeHolds(_ resource: OriginResource, request: HTTPRequest) -> Bool {
        guard let condition = request.headers["if-range"]?.trimmingCharacters(in: .whitespaces) else {
            return true
        }
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            return condition == resource.etag
        }
        guard let date = HTTPDate.parse(condition) else { return false }
        return date.timeIntervalSince1970 == resource.lastModified.timeIntervalSince1970.rounded(.down)
    }

    private static func weakTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}
