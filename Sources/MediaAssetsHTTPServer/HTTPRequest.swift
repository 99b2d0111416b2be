import Foundation

/// A request as the server read it: the request line and header block of HTTP/1.0 or 1.1.
package struct HTTPRequest: Sendable, Equatable {
    /// Why a request head was rejected; every case is answered with 400 (or 505 for the version).
    enum ParseError: Error, Equatable {
        case malformedRequestLine(String)
        case unsupportedVersion(String)
        case malformedHeader(String)
        case unsupportedTransferEncoding
        case invalidContentLength(String)
    }

    /// The method, for example `GET` or `HEAD`.
    package var method: String
    /// The target exactly as sent (path and query; an absolute-form target is reduced to them).
    package var target: String
    /// The percent-decoded path without the query.
    package var path: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    /// The header fields, names lowercased; repeated fields joined with ", ".
    package var headers: [String: String]
    /// Identifies the TCP connection: equal values mean the requests shared one keep-alive connection.
    package internal(set) var connectionID = 0

    /// Length of the request body that follows the head (GET and HEAD rarely have one).
    package var contentLength: Int {
        headers["content-length"].flatMap { Int($0) } ?? 0
    }

    /// How the request's `Range` header applies to a representation of `length` bytes.
    package func byteRange(forLength length: Int) -> HTTPRangeRequest {
        HTTPRangeRequest(header: headers["range"], length: length)
    }

    /// Whether the client asked to keep the connection open after this exchange.
    package var wantsKeepAlive: Bool {
        let tokens = (headers["connection"] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    /// Parses the bytes before the blank line that ends a request head.
    init(parsing bytes: ArraySlice<UInt8>) throws(ParseError) {
        // Split on bytes: in Swift "\r\n" is one Character, so splitting a String on "\n" would not split.
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            Substring(String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self))
        }
        guard !lines.isEmpty else { throw .malformedRequestLine("") }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3,
            !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") }),
            !parts[1].isEmpty
        else { throw .malformedRequestLine(String(requestLine.prefix(200))) }
        switch parts[2] {
        case "HTTP/1.1": minorVersion = 1
        case "HTTP/1.0": minorVersion = 0
        default:
            guard parts[2].hasPrefix("HTTP/") else { throw .malformedRequestLine(String(requestLine.prefix(200))) }
            throw .unsupportedVersion(String(parts[2].prefix(20)))
        }
        method = String(parts[0])
        target = try Self.originForm(of: String(parts[1]))
        let rawPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        path = String(rawPath).removingPercentEncoding ?? String(rawPath)
        headers = try Self.parseHeaders(lines)
        if headers["transfer-encoding"] != nil { throw .unsupportedTransferEncoding }
        if let length = headers["content-length"], Int(length).map({ $0 < 0 }) ?? true {
            throw .invalidContentLength(String(length.prefix(40)))
        }
    }

    /// Reduces an absolute-form target (`http://host/path`) to its path and query.
    private static func originForm(of target: String) throws(ParseError) -> String {
        if target.hasPrefix("/") { return target }
        let lowered = target.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            let components = URLComponents(string: target)
        else { throw .malformedRequestLine("target \(target.prefix(200))") }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    private static func parseHeaders(_ lines: [Substring]) throws(ParseError) -> [String: String] {
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let first = line.first, first != " ", first != "\t", let colon = line.firstIndex(of: ":") else {
                throw .malformedHeader(String(line.prefix(200)))
            }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" }) else {
                throw .malformedHeader(String(line.prefix(200)))
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let key = name.lowercased()
            if let existing = headers[key] {
                headers[key] = existing + ", " + value
            } else {
                headers[key] = value
            }
        }
        return headers
    }
}

/// Feeds arbitrary bytes to the request-head parser the server uses (and the `Range` resolution): it
/// must return a head or reject it, never crash. The libFuzzer entry point of the parser (see `Fuzz/`).
package func parseHTTPRequestHeadForFuzzing(_ data: Data) {
    var buffer = RequestHeadBuffer(maximumHeadSize: 64 << 10, maximumBodySize: 1 << 20)
    buffer.append([UInt8](data)[...])
    for _ in 0..<4 {
        guard case .request(let request) = buffer.next() else { break }
        _ = request.byteRange(forLength: data.count)
        _ = request.wantsKeepAlive
    }
    _ = HTTPRangeRequest(header: String(decoding: data.prefix(256), as: UTF8.self), length: data.count)
}
