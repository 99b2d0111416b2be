import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP listener that accepts connections but is not Redis: it never answers, or answers
/// every request with fixed bytes. For the fault tests of a Redis client (slow server, garbage).
public final class RedisFakeServer: Sendable {
    /// How the fake answers.
    public enum Behavior: Sendable {
        /// Reads requests and never answers (a server stuck past every timeout).
        case silent
        /// Answers each request it reads with these bytes.
        case answers([UInt8])
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let state = Mutex<(connections: [Int32], accepted: Int, stopped: Bool)>(([], 0, false))

    /// Starts listening on a free loopback port.
    public init(_ behavior: Behavior) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw ConditionTimedOut(condition: "a loopback listener (errno \(errno))")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop(behavior) }
        thread.start()
    }

    /// Connections accepted so far.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Stops listening and closes every connection.
    public func stop() {
        let connections = state.withLock { state in
            state.stopped = true
            defer { state.connections.removeAll() }
            return state.connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in connections {
            shutdown(connection, Int32(SHUT_RDWR))
            close(connection)
        }
    }

    private func acceptLoop(_ behavior: Behavior) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let keep = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.append(connection)
                state.accepted += 1
                return true
            }
            guard keep else {
                close(connection)
                return
            }
            let thread = Thread { Self.serve(connection, behavior) }
            thread.start()
        }
    }

    private static func serve(_ connection: Int32, _ behavior: Behavior) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            if case .answers(let bytes) = behavior {
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }
}
