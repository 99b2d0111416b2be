import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a loopback socket could not be had: what was tried, and the failing call's errno.
struct LoopbackSocketFailure: Error, CustomStringConvertible {
    let attempt: String
    let code: Int32
    var description: String { "\(attempt): errno \(code)" }
}

/// A loopback TCP port the system has just handed out and taken back, for a server a benchmark starts
/// (redis-server, nginx) to bind.
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard named else { throw LoopbackSocketFailure(attempt: "no free port", code: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A TCP socket connected to 127.0.0.1:`port`, for the bare baselines a benchmark measures against; the caller
/// closes it. On failure the socket is closed here.
func connectedLoopbackSocket(port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let code = errno
        close(descriptor)
        throw LoopbackSocketFailure(attempt: "connect to port \(port)", code: code)
    }
    return descriptor
}

/// Whether something accepts connections on 127.0.0.1:`port`.
func canConnectToLoopback(port: Int) -> Bool {
    guard let descriptor = try? connectedLoopbackSocket(port: port) else { return false }
    close(descriptor)
    return true
}

/// The IPv4 address 127.0.0.1:`port` (0 lets `bind` pick a free port).
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    return address
}
