#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the POSIX socket calls the origin needs, with `errno` turned into typed errors.
enum Socket {
    /// The result of writing a buffer completely.
    enum SendOutcome: Equatable {
        case sent
        /// The peer hung up (EPIPE, ECONNRESET) or the socket was shut down by ``SampleOrigin/stop()``.
        case peerClosed
    }

    /// Opens a listening TCP socket on 127.0.0.1 with an ephemeral port; returns it and the port.
    static func listenOnLoopback(backlog: Int32 = 1024) throws(SampleOriginError) -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socketCallFailed(operation: "socket", errno: errno) }
        do {
            var reuse: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw SampleOriginError.socketCallFailed(operation: "setsockopt(SO_REUSEADDR)", errno: errno)
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw SampleOriginError.socketCallFailed(operation: "bind", errno: errno) }
            guard listen(fd, backlog) == 0 else {
                throw SampleOriginError.socketCallFailed(operation: "listen", errno: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw SampleOriginError.socketCallFailed(operation: "getsockname", errno: errno) }
            return (fd, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(fd)
            throw error as? SampleOriginError ?? .socketCallFailed(operation: "listen", errno: EINVAL)
        }
    }

    /// Accepts one connection (blocking); returns the descriptor, or -1 with `errno` set.
    static func acceptConnection(on listenFD: Int32) -> Int32 {
        let fd = accept(listenFD, nil, nil)
        // accept4 is hidden behind _GNU_SOURCE in Swift's Glibc view; set close-on-exec by hand.
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
    }

    /// Turns off Nagle's algorithm: small keep-alive answers must not wait for delayed ACKs.
    static func disableNagle(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `bytes`, retrying partial writes; never raises SIGPIPE.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> SendOutcome {
        guard var cursor = bytes.baseAddress else { return .sent }
        var remaining = bytes.count
        while remaining > 0 {
            let written = send(fd, cursor, remaining, Int32(MSG_NOSIGNAL))
            if written < 0 {
                if errno == EINTR { continue }
                return .peerClosed
            }
            if written == 0 { return .peerClosed }
            cursor += written
            remaining -= written
        }
        return .sent
    }

    /// Reads what is available into `buffer` (appending, at most `limit` bytes); returns 0 at end of stream.
    static func receive(_ fd: Int32, appendingTo buffer: inout [UInt8], limit: Int) -> Int {
        var chunk = [UInt8](repeating: 0, count: max(1, limit))
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return 0 }
            buffer.append(contentsOf: chunk[0..<count])
            return count
        }
    }

    /// Sends FIN, reads what the client still sends for a short bounded time, then closes.
    ///
    /// Closing with unread bytes makes the kernel send RST, and an RST can destroy the response the client
    /// has not read yet (a 400 or 431 to a client still sending, for example).
    static func closeGracefully(_ fd: Int32, lingerMilliseconds: Int32 = 100, maximumBytes: Int = 1 << 20) {
        _ = shutdown(fd, Int32(SHUT_WR))
        var drained = 0
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while drained < maximumBytes, poll(&descriptor, 1, lingerMilliseconds) > 0 {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }
            drained += count
        }
        close(fd)
    }

    /// Whether the peer has hung up, checked without blocking and without consuming pipelined bytes.
    static func peerHasClosed(_ fd: Int32) -> Bool {
        var probe: UInt8 = 0
        let count = recv(fd, &probe, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        return false
    }
}
