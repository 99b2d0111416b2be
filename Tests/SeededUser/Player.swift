import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A media player's HTTP reads, as ffmpeg's `http` protocol makes them: `Range: bytes=X-` (the rest of the file),
/// the body read until the demuxer has what it needs, then the connection closed. Runs on a thread of its own
/// (blocking socket calls never run on the cooperative pool), bounded by a receive timeout.
enum Player {
    /// What one read got.
    struct Read {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens `path` on 127.0.0.1:`port` from byte `start` to the end, reads `count` body bytes (fewer at the end)
    /// and hangs up.
    static func read(port: Int, path: String, from start: Int, count: Int) async throws -> Read {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try readBlocking(port: port, path: path, from: start, count: count) })
            }
        }
    }

    private static func readBlocking(port: Int, path: String, from start: Int, count: Int) throws -> Read {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        // The kernel's own receive buffer, as ffmpeg leaves it: a server writes as far ahead of the player as the
        // buffers let it, the origin and the proxy alike, which is why the runner compares the two.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        let head =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nRange: bytes=\(start)-\r\n"
            + "User-Agent: seeded-user\r\nConnection: close\r\n\r\n"
        let sent = head.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        guard sent == head.utf8.count else { throw Failure(description: "send: errno \(errno)") }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var headEnd: Int?
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let headEnd, received.count - headEnd >= count { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw Failure(description: "recv: errno \(errno) after \(received.count) bytes") }
            if n == 0 { break }
            received.append(contentsOf: buffer[0..<n])
            if headEnd == nil, let range = received.range(of: separator) { headEnd = range.upperBound }
        }
        guard let headEnd else { throw Failure(description: "no response head in \(received.count) bytes") }
        let lines = String(decoding: received[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        let body = received[headEnd..<min(received.count, headEnd + count)]
        return Read(status: status, headers: httpHeaderFields(lines.dropFirst()), body: Data(body))
    }
}
