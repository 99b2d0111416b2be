import Foundation
import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// A connected stream socket: deadline-bounded connect, sends and receives for the handshake, then
/// non-blocking sends from any thread and blocking receives on the connection's reader thread.
///
/// The descriptor is closed when the last owner lets go of the socket, never while a thread may
/// still be in a call on it; `shutdown()` wakes a thread blocked in `receive`.
final class RedisSocket: Sendable {
    enum Failure: Error {
        case connect(String)
        case timedOut
        case closed(String)
    }

    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { POSIX.close(descriptor) }

    /// Connects to `endpoint`, giving up when `deadline` passes.
    static func connect(to endpoint: RedisEndpoint, deadline: ContinuousClock.Instant) throws(Failure) -> RedisSocket {
        switch endpoint {
        case .unix(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            guard path.utf8.count < capacity else {
                throw .connect("the socket path is longer than \(capacity - 1) bytes")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: path.utf8)
                raw[path.utf8.count] = 0
            }
            return try withUnsafeBytes(of: &address) { raw throws(Failure) in
                try open(family: AF_UNIX, address: raw, length: MemoryLayout<sockaddr_un>.size, deadline: deadline)
            }
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_family = AF_UNSPEC
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw .connect("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(list) }
            var lastFailure = Failure.connect("no address for \(host)")
            var candidate: UnsafeMutablePointer<addrinfo>? = first
            while let info = candidate {
                do {
                    let raw = UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen))
                    let socket = try open(
                        family: info.pointee.ai_family, address: raw, length: Int(info.pointee.ai_addrlen),
                        deadline: deadline)
                    var on: Int32 = 1
                    _ = setsockopt(
                        socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                    return socket
                } catch {
                    lastFailure = error
                }
                candidate = info.pointee.ai_next
            }
            throw lastFailure
        }
    }

    private static func open(
        family: Int32, address: UnsafeRawBufferPointer, length: Int, deadline: ContinuousClock.Instant
    ) throws(Failure) -> RedisSocket {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connect("socket: \(errorText())") }
        let socket = RedisSocket(descriptor: descriptor)
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let result = POSIX.connect(
            descriptor, address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(length))
        if result != 0 {
            guard errno == EINPROGRESS else { throw .connect(errorText()) }
            guard try socket.wait(for: Int16(POLLOUT), until: deadline) else { throw .timedOut }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw .connect(String(cString: strerror(error))) }
        }
        return socket
    }

    /// Makes `receive(into:)` block, waking every `tick` when nothing arrives (so that its caller
    /// can check its deadlines); sends stay non-blocking.
    func blockReceives(waking tick: Duration) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        let (seconds, attoseconds) = tick.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends what the socket takes now of `bytes` from `offset` on (never waits); returns the count.
    func sendAvailable(_ bytes: [UInt8], from offset: Int = 0) throws(Failure) -> Int {
        let outcome = bytes.withUnsafeBytes { raw -> Result<Int, Failure> in
            var sent = offset
            while sent < raw.count {
                let count = POSIX.send(
                    descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if count > 0 {
                    sent += count
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    break
                } else {
                    return .failure(.closed("send: \(errorText())"))
                }
            }
            return .success(sent - offset)
        }
        return try outcome.get()
    }

    /// Sends all of `bytes` before `deadline`, waiting for room as needed.
    func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            sent += try sendAvailable(bytes, from: sent)
            if sent < bytes.count {
                guard try wait(for: Int16(POLLOUT), until: deadline) else { throw .timedOut }
            }
        }
    }

    /// Receives what is available into `scratch`, waiting until `deadline`; returns the count.
    func receive(into scratch: inout [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) -> Int {
        while true {
            guard let count = try receive(into: &scratch, flags: Int32(MSG_DONTWAIT)) else {
                guard try wait(for: Int16(POLLIN), until: deadline) else { throw .timedOut }
                continue
            }
            return count
        }
    }

    /// Receives what arrives into `scratch`, blocking up to the tick set by `blockReceives`:
    /// the count, or nil when the tick passed with nothing.
    func receive(into scratch: inout [UInt8]) throws(Failure) -> Int? {
        try receive(into: &scratch, flags: 0)
    }

    /// One `recv`: the count, nil when nothing was there (or the tick passed), or the failure.
    private func receive(into scratch: inout [UInt8], flags: Int32) throws(Failure) -> Int? {
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, flags) }
            if count > 0 { return count }
            if count == 0 { throw .closed("the server closed the connection") }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw .closed("recv: \(errorText())")
        }
    }

    /// Ends both directions: a thread blocked in `receive` returns, later sends fail.
    func shutdown() {
        _ = POSIX.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Waits for `events`; false when the deadline passed first.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(Failure) -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var descriptor = pollfd(fd: self.descriptor, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: remaining.wholeMilliseconds))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { throw .closed("poll: \(Self.errorText())") }
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) + " (errno \(errno))" }
    private func errorText() -> String { Self.errorText() }
}
