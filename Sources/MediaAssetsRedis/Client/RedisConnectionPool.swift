import Dispatch
import Foundation
import Synchronization

/// The connections to one server, at most `poolSize`, shared by concurrent commands, with
/// reconnect backoff.
///
/// A command goes on the connection with the fewest commands waiting; a new connection is opened
/// (off the cooperative pool) only when every open one is busy and the pool has room, so one task
/// at a time uses one connection and a burst spreads over the pool, pipelined. After a failed
/// connect no new connect is tried until a backoff (doubling from `initialBackoff` to
/// `maximumBackoff`) has passed; commands meanwhile fail at once with `RedisError.unavailable`, so
/// a dead server costs callers nothing.
final class RedisConnectionPool: Sendable {
    /// Counters of one pool, summed into the backend's statistics.
    struct Counters: Sendable, Hashable {
        var connectsOpened = 0
        var connectFailures = 0
        var commandFailures = 0
    }

    private typealias Opening = Task<Result<RedisConnection, RedisError>, Never>

    private struct State {
        var connections: [RedisConnection] = []
        /// Connects under way, by number; they count against the pool's size.
        var openings: [Int: Opening] = [:]
        var nextOpening = 0
        var consecutiveFailures = 0
        var retryAt: ContinuousClock.Instant?
        var lastError = ""
        var counters = Counters()
    }

    let endpoint: RedisEndpoint
    let options: RedisClientOptions
    private let state = Mutex(State())

    init(endpoint: RedisEndpoint, options: RedisClientOptions) {
        self.endpoint = endpoint
        self.options = options
    }

    deinit {
        state.withLock { state in
            for connection in state.connections { connection.close() }
        }
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// Sends `commands` in one write and returns their replies in order (error replies are
    /// values). A reused connection found dead (the server restarted, or dropped it as idle) is
    /// replaced once.
    func send(_ commands: [RESPCommand]) async throws(RedisError) -> [RESPValue] {
        let (connection, isReused) = try await connection()
        do {
            return try await counting(connection) { () throws(RedisError) in
                try await connection.submit(commands).value()
            }
        } catch  where isReused && error.isStaleConnection {
            let fresh = try await open()
            return try await counting(fresh) { () throws(RedisError) in try await fresh.submit(commands).value() }
        }
    }

    /// Sends `commands` in one write and returns their replies to await: several pools can be sent
    /// to before any reply is awaited (a cluster's batch, one write per node).
    func submit(_ commands: [RESPCommand]) async throws(RedisError) -> RedisReplies {
        let (connection, _) = try await connection()
        return try connection.submit(commands)
    }

    /// Closes the connections no command is waiting on.
    func closeIdle() {
        let idle = state.withLock { state in
            let idle = state.connections.filter { $0.waitingCount == 0 }
            state.connections.removeAll { $0.waitingCount == 0 }
            return idle
        }
        for connection in idle { connection.close() }
    }

    // MARK: Internals

    /// An idle connection, else a new one while the pool has room, else the least busy one (or
    /// the first to finish opening); whether it was open before.
    private func connection() async throws(RedisError) -> (RedisConnection, isReused: Bool) {
        if let refusal = backoffRefusal() { throw refusal }
        enum Choice {
            case connection(RedisConnection)
            case opening(Opening)
        }
        let choice = state.withLock { state -> Choice in
            state.connections.removeAll { $0.isBroken }
            let leastBusy = state.connections.min { $0.waitingCount < $1.waitingCount }
            if let leastBusy, leastBusy.waitingCount == 0 { return .connection(leastBusy) }
            guard state.connections.count + state.openings.count >= options.poolSize else {
                let number = state.nextOpening
                state.nextOpening += 1
                let opening = Opening { await self.open(number) }
                state.openings[number] = opening
                return .opening(opening)
            }
            if let leastBusy { return .connection(leastBusy) }
            return .opening(state.openings.values.first!)
        }
        switch choice {
        case .connection(let connection): return (connection, true)
        case .opening(let opening): return (try await opening.value.get(), false)
        }
    }

    /// Opens connection `number` of the pool (see `openings`) and adds it.
    private func open(_ number: Int) async -> Result<RedisConnection, RedisError> {
        defer { state.withLock { $0.openings[number] = nil } }
        do {
            return .success(try await open())
        } catch {
            return .failure(error)
        }
    }

    /// Opens a connection on a dispatch queue (connecting blocks, up to the connect timeout) and
    /// adds it to the pool.
    private func open() async throws(RedisError) -> RedisConnection {
        let (endpoint, options) = (endpoint, options)
        do {
            let connection = try await DispatchQueue.global().runBlocking { () throws(RedisError) in
                try RedisConnection.open(to: endpoint, options: options)
            }
            state.withLock { state in
                state.connections.append(connection)
                state.consecutiveFailures = 0
                state.retryAt = nil
                state.counters.connectsOpened += 1
            }
            return connection
        } catch {
            state.withLock { state in
                state.consecutiveFailures += 1
                state.retryAt = .now + backoff(afterFailures: state.consecutiveFailures)
                state.lastError = error.description
                state.counters.connectFailures += 1
            }
            throw error
        }
    }

    /// Runs `body` on `connection`, counting a failure that broke the connection.
    private func counting<T>(
        _ connection: RedisConnection, _ body: () async throws(RedisError) -> T
    ) async throws(RedisError) -> T {
        do {
            return try await body()
        } catch {
            if connection.isBroken { state.withLock { $0.counters.commandFailures += 1 } }
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
