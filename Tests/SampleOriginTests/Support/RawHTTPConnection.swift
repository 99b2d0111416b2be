import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client for what URLSession cannot send or show: malformed requests, pipelining, exact headers.
final class RawHTTPConnection {
    /// A response as read off the wire.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    enum Failure: Error {
        case closedBeforeHead
        case malformedHead(String)
    }

    private let fd: Int32
    private var buffer = Data()

    /// Connects to 127.0.0.1:`port`; reads give up after 60 seconds instead of hanging a test.
    init(port: Int) throws {
        fd = try connectedLoopbackSocket(port: port)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func canConnect(port: Int) -> Bool {
        (try? RawHTTPConnection(port: port)) != nil
    }

    /// Sends `text` as is (use "\r\n" line ends).
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads one response; the body is read by Content-Length, or to end of stream when `readToEnd`.
    func readResponse(readToEnd: Bool = false, expectBody: Bool = true) throws -> Response {
        let (status, headers) = try readHead()
        if readToEnd {
            while fill() {}
            defer { buffer = Data() }
            return Response(status: status, headers: headers, body: buffer)
        }
        let length = expectBody ? (headers["content-length"].flatMap { Int($0) } ?? 0) : 0
        return Response(status: status, headers: headers, body: readBody(length))
    }

    /// Reads one response head and the first `count` bytes of its body (fewer if the server closes first),
    /// leaving the rest of the body unread: for a body that stalls.
    func readResponse(firstBodyBytes count: Int) throws -> Response {
        let (status, headers) = try readHead()
        return Response(status: status, headers: headers, body: readBody(count))
    }

    private func readBody(_ length: Int) -> Data {
        while buffer.count < length, fill() {}
        let body = buffer.prefix(length)
        buffer = Data(buffer.dropFirst(body.count))
        return Data(body)
    }

    private func readHead() throws -> (status: Int, headers: [String: String]) {
        var headEnd = buffer.range(of: Data("\r\n\r\n".utf8))
        while headEnd == nil {
            guard fill() else { throw Failure.closedBeforeHead }
            headEnd = buffer.range(of: Data("\r\n\r\n".utf8))
        }
        guard let headEnd else { throw Failure.closedBeforeHead }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headEnd.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformedHead(head) }
        return (status, httpHeaderFields(lines))
    }

    /// Reads and counts bytes until the server closes; for large bodies without keeping them.
    func countBytesUntilClosed() -> Int {
        var total = buffer.count
        buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return total }
            total += count
        }
    }

    /// Whether the server has closed the connection (a read returns end of stream or a reset, not a timeout).
    func isClosedByServer() -> Bool {
        buffer.isEmpty && !fill() && !lastReadTimedOut
    }

    /// Whether the last read gave up at the receive timeout rather than seeing the end of the stream.
    private var lastReadTimedOut = false

    private func fill() -> Bool {
        // Scratch memory rather than a zero-filled array: in a debug build that fill runs element by element.
        let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 * 1024) { chunk in
            let count = recv(fd, chunk.baseAddress, chunk.count, 0)
            lastReadTimedOut = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            if count > 0 { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count])) }
            return count
        }
        return count > 0
    }
}
