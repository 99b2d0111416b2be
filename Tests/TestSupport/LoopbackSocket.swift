import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a test's raw client could not connect to a loopback port: the failing call's errno.
public struct LoopbackConnectFailure: Error, CustomStringConvertible {
    public let code: Int32
    public var description: String { "connect failed: errno \(code)" }
}

/// A TCP socket connected to 127.0.0.1:`port`, for clients that send what URLSession cannot; the caller closes
/// it. On failure the socket is closed here and the error carries the errno.
public func connectedLoopbackSocket(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackConnectFailure(code: errno) }
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let code = errno
        close(fd)
        throw LoopbackConnectFailure(code: code)
    }
    return fd
}

/// The IPv4 address 127.0.0.1:`port` (0 lets `bind` pick a free port).
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    return address
}

/// The header fields of a response head's lines after the status line, names lowercased and values trimmed;
/// a line without a colon is skipped.
public func httpHeaderFields(_ lines: some Sequence<String>) -> [String: String] {
    var headers: [String: String] = [:]
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return headers
}
