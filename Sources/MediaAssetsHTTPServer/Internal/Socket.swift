#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The C calls whose names this file's types also use, reached the same way on every platform.
@discardableResult
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, bytes, count, flags)
    #else
    Darwin.send(fd, bytes, count, flags)
    #endif
}

/// Thin wrappers over the POSIX calls of the server: non-blocking sockets, `errno` turned into typed errors.
enum Socket {
    /// What a non-blocking read or write did.
    enum Transfer: Equatable {
        /// This many bytes moved (more than 0).
        case moved(Int)
        /// Nothing can move now; poll and try again.
        case wouldBlock
        /// The peer closed (a read of 0 bytes) or the connection failed (EPIPE, ECONNRESET, shutdown).
        case closed
    }

    /// `POLLRDHUP` (Linux): the peer shut its side down; Swift does not import it.
    static let readHangUp: Int16 = 0x2000

    /// Opens a non-blocking listening TCP socket on 127.0.0.1 with an ephemeral port; returns it and the port.
    static func listenOnLoopback(backlog: Int32 = 1024) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socketCallFailed(operation: "socket", errno: errno) }
        do {
            var reuse: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw HTTPServerError.socketCallFailed(operation: "setsockopt(SO_REUSEADDR)", errno: errno)
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
            guard bound == 0 else { throw HTTPServerError.socketCallFailed(operation: "bind", errno: errno) }
            guard listen(fd, backlog) == 0 else {
                throw HTTPServerError.socketCallFailed(operation: "listen", errno: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw HTTPServerError.socketCallFailed(operation: "getsockname", errno: errno) }
            makeNonBlocking(fd)
            return (fd, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(fd)
            throw error as? HTTPServerError ?? .socketCallFailed(operation: "listen", errno: EINVAL)
        }
    }

    /// A pipe whose read end wakes a `poll` when a byte is written to the other; both ends non-blocking.
    static func makeWakePipe() throws(HTTPServerError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .socketCallFailed(operation: "pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            makeNonBlocking(end)
        }
        return (ends[0], ends[1])
    }

    /// Accepts one pending connection (non-blocking, close-on-exec, Nagle off); -1 with `errno` when none.
    static func acceptConnection(on listenFD: Int32) -> Int32 {
        let fd = accept(listenFD, nil, nil)
        guard fd >= 0 else { return fd }
        // accept4 is hidden behind _GNU_SOURCE in Swift's Glibc view; set the flags by hand.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        makeNonBlocking(fd)
        var on: Int32 = 1
        // Small keep-alive answers must not wait for delayed ACKs.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    static func makeNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Writes what the socket takes now of `bytes`; never blocks, never raises SIGPIPE.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Transfer {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .moved(0) }
        while true {
            let written = systemSend(fd, base, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if written > 0 { return .moved(written) }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .closed
        }
    }

    /// Reads what is available into `buffer` (appending at most `limit` bytes); never blocks.
    ///
    /// Receives into scratch memory and appends only the bytes that came, with one copy. Zero-filling `limit`
    /// bytes of the array first ran, in an unoptimised build, the standard library's generic append element by
    /// element: 64 Ki witness calls per read, which across a hundred server threads under ThreadSanitizer held
    /// both cores for minutes.
    static func receive(_ fd: Int32, appendingTo buffer: inout [UInt8], limit: Int) -> Transfer {
        withScratch(limit) { scratch in
            let transfer = receive(fd, into: scratch)
            if case .moved(let count) = transfer {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
            }
            return transfer
        }
    }

    /// Reads and drops what is available (at most `limit` bytes); `.closed` at the end of the stream.
    static func discard(_ fd: Int32, limit: Int) -> Transfer {
        withScratch(limit) { receive(fd, into: $0) }
    }

    /// Runs `body` with at least 1 and at most `limit` bytes of scratch memory.
    private static func withScratch(_ limit: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Transfer) -> Transfer {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, limit), body)
    }

    /// One non-blocking `recv` into `scratch`, retried on EINTR.
    private static func receive(_ fd: Int32, into scratch: UnsafeMutableBufferPointer<UInt8>) -> Transfer {
        while true {
            let received = recv(fd, scratch.baseAddress!, scratch.count, Int32(MSG_DONTWAIT))
            if received > 0 { return .moved(received) }
            if received < 0, errno == EINTR { continue }
            if received < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .closed
        }
    }
}
