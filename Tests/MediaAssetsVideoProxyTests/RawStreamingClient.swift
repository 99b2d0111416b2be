import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on one socket, for reading long bodies without keeping them: it checks the
/// bytes against the expected ones as they come. Run it off the cooperative pool (`read(...)` blocks).
final class RawStreamingClient: @unchecked Sendable {
    // @unchecked: used by one thread at a time.
    private let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int) throws {
        fd = try connectedLoopbackSocket(port: port)
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Reads a response head: the status and the headers (names lowercased).
    func readHead() throws -> (status: Int, headers: [String: String]) {
        while true {
            if let end = buffer.indices.dropLast(3).first(where: {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = text.components(separatedBy: "\r\n")
                let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
                return (status, httpHeaderFields(lines))
            }
            guard fill() else { throw Failure(description: "the connection closed before a head") }
        }
    }

    /// Reads `count` body bytes, comparing them with `expected` as they come; returns how many matched.
    func readBody(count: Int, expected: Data) -> Int {
        var position = 0
        while position < count {
            if buffer.isEmpty, !fill() { return position }
            let take = min(buffer.count, count - position)
            let matches = expected.withUnsafeBytes { source in
                buffer.withUnsafeBytes { memcmp($0.baseAddress!, source.baseAddress! + position, take) == 0 }
            }
            guard matches else { return position }
            buffer.removeFirst(take)
            position += take
        }
        return position
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}

/// Runs blocking work on a thread of its own: neither on the cooperative pool nor on a `DispatchQueue.global()`
/// worker, which on Linux the pool runs on too.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await onOwnThread("raw streaming client", work)
}
