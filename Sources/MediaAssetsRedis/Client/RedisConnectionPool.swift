import Dispatch
import Foundation
import Synchronization

/// A bounded pool of connections to one server, with reconnect backoff.
///
/// Blocking: call it from a dispatch queue, never from the cooperative pool. A command that finds
/// every connection busy waits up to the read timeout. After a failed connect no new connect is
/// tried until a backoff (doubling from `initialBackoff` to `maximumBackoff`) has passed; commands
/// meanwhile fail at once with `RedisError.unavailable`, so a dead server costs callers nothing.
final class RedisConnectionPool: Sendable {
    /// Counters of one pool, summed into the backend's statistics.
    struct Counters: Sendable, Hashable {
        var connectsOpened = 0
        var connectFailures = 0
        var commandFailures = 0
    }

    private struct State {
        var idle: [RedisConnection] = []
        var consecutiveFailures = 0
        var retryAt: ContinuousClock.Instant?
        var lastError = ""
        var counters = Counters()
    }

    let endpoint: RedisEndpoint
    let options: RedisClientOptions
    private let capacity: DispatchSemaphore
    private let state = Mutex(State())

    init(endpoint: RedisEndpoint, options: RedisClientOptions) {
        self.endpoint = endpoint
        self.options = options
        self.capacity = DispatchSemaphore(value: options.poolSize)
    }

    deinit {
        state.withLock { state in
            for connection in state.idle { connection.close() }
        }
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// Runs `body` with a connection; a reused connection found dead is replaced once.
    func withConnection<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
        if let refusal = backoffRefusal() { throw refusal }
        guard capacity.wait(timeout: .now() + .milliseconds(options.readTimeout.wholeMilliseconds)) == .success else {
            throw .poolExhausted(
                endpoint: endpoint.description, size: options.poolSize,
                milliseconds: options.readTimeout.wholeMilliseconds)
        }
        defer { capacity.signal() }
        let reused = state.withLock { $0.idle.popLast() }
        do throws(RedisError) {
            let connection: RedisConnection
            if let reused { connection = reused } else { connection = try open() }
            return try run(body, on: connection)
        } catch let error where reused != nil && error.isStaleConnection {
            // The server restarted or dropped idle connections: the others are stale too.
            let stale = state.withLock { state in
                defer { state.idle.removeAll() }
                return state.idle
            }
            for connection in stale { connection.close() }
            return try run(body, on: try open())
        }
    }

    /// Closes every idle connection.
    func closeIdle() {
        let idle = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    private func run<T>(_ body: (RedisConnection) throws(RedisError) -> T, on connection: RedisConnection)
        throws(RedisError) -> T
    {
        do {
            let value = try body(connection)
            if !connection.isBroken { state.withLock { $0.idle.append(connection) } }
            return value
        } catch {
            if connection.isBroken {
                state.withLock { $0.counters.commandFailures += 1 }
            } else {
                state.withLock { $0.idle.append(connection) }
            }
            throw error
        }
    }

    private func open() throws(RedisError) -> RedisConnection {
        do {
            let connection = try RedisConnection.open(to: endpoint, options: options)
            state.withLock { state in
                state.consecutiveFailures = 0
                state.retryAt = nil
                state.counters.connectsOpened += 1
            }
            return connection
        } catch {
            let backoff = backoff(afterFailures: state.withLock { $0.consecutiveFailures + 1 })
            state.withLock { state in
                state.consecutiveFailures += 1
                state.retryAt = .now + backoff
                state.lastError = error.description
                state.counters.connectFailures += 1
            }
            throw error
        }
    }

    private func backoffRefusal() -> RedisError? {
        state.withLock { state in
            guard let retryAt = state.retryAt else { return nil }
            let remaining = ContinuousClock.now.duration(to: retryAt)
            guard remaining > .zero else { return nil }
            return .unavailable(
                endpoint: endpoint.description, retryInMilliseconds: remaining.wholeMilliseconds,
                lastError: state.lastError)
        }
    }

    private func backoff(afterFailures failures: Int) -> Duration {
        let exponent = min(max(0, failures - 1), 16)
        let grown = options.initialBackoff * (1 << exponent)
        return min(grown, options.maximumBackoff)
    }
}

extension RedisError {
    /// A failure a reused connection shows when the server went away since it was last used.
    var isStaleConnection: Bool {
        if case .connectionLost = self { return true }
        return false
    }
}
