import Foundation

/// What `RedisBackend` needs of a server or a cluster: keyed commands routed to the node that owns
/// the key, batches pipelined per node, and per-node commands for scans and configuration.
package protocol RedisCommandRouting: Sendable {
    /// Sends a command about `key`; an error reply is thrown as `RedisError.serverError`.
    @discardableResult
    func send(_ command: RESPCommand, routedBy key: Data) async throws(RedisError) -> RESPValue

    /// Sends keyed commands pipelined (one round trip per node); one result per command, in order.
    func sendBatch(_ commands: [(command: RESPCommand, key: Data)]) async -> [Result<RESPValue, RedisError>]

    /// Sends commands to one node, pipelined; error replies are values.
    func send(_ commands: [RESPCommand], to node: RedisEndpoint) async throws(RedisError) -> [RESPValue]

    /// The nodes holding data: the server, or every cluster primary.
    func primaries() async throws(RedisError) -> [RedisEndpoint]

    /// Transport counters summed over every node's pool.
    var transportCounters: RedisTransportCounters { get }
}

/// How often connections were opened and failed, and how often a cluster redirected or was re-read.
package struct RedisTransportCounters: Sendable, Hashable {
    /// Connections opened (the first and every reconnect).
    package var connectionsOpened = 0
    /// Connect attempts that failed.
    package var connectFailures = 0
    /// Commands whose connection broke (timeout, reset, garbage) and was dropped.
    package var brokenConnections = 0
    /// `MOVED` and `ASK` redirections followed.
    package var redirects = 0
    /// Times the cluster's slot map was read.
    package var slotMapRefreshes = 0

    /// No counts.
    package init() {}

    mutating func add(_ pool: RedisConnectionPool.Counters) {
        connectionsOpened += pool.connectsOpened
        connectFailures += pool.connectFailures
        brokenConnections += pool.commandFailures
    }
}

extension RedisClient: RedisCommandRouting {
    package func send(_ command: RESPCommand, routedBy key: Data) async throws(RedisError) -> RESPValue {
        try await send(command)
    }

    package func sendBatch(_ commands: [(command: RESPCommand, key: Data)]) async -> [Result<RESPValue, RedisError>] {
        do {
            return try await pipeline(commands.map(\.command)).map { reply in
                if case .error(let message) = reply {
                    return .failure(
                        .serverError(endpoint: endpoint.description, command: "pipelined", message: message))
                }
                return .success(reply)
            }
        } catch {
            return Array(repeating: .failure(error), count: commands.count)
        }
    }

    package func send(_ commands: [RESPCommand], to node: RedisEndpoint) async throws(RedisError) -> [RESPValue] {
        try await pipeline(commands)
    }

    package func primaries() async throws(RedisError) -> [RedisEndpoint] { [endpoint] }

    package var transportCounters: RedisTransportCounters {
        var counters = RedisTransportCounters()
        counters.add(pool.counters)
        return counters
    }
}
