import Foundation
import Synchronization

/// A client of a Redis Cluster: keys go to the primary that owns their hash slot.
///
/// The slot map is read with `CLUSTER SLOTS` from any reachable node (the seeds first) on first
/// use, after a `MOVED` (the moved slot is fixed at once, the whole map re-read), and when a node
/// stops answering. `ASK` sends `ASKING` and the command to the importing node once. A node that
/// is gone makes its slots fail fast with a typed error (connect timeout, then backoff), never hang.
package final class RedisClusterClient: Sendable {
    /// The addresses tried first to discover the cluster.
    package let seeds: [RedisEndpoint]
    /// Credentials, pool size and timeouts, used for every node.
    package let options: RedisClientOptions
    /// The most redirections followed for one command.
    package static let maximumRedirects = 5

    private struct State {
        var map = ClusterSlotMap()
        var pools: [RedisEndpoint: RedisConnectionPool] = [:]
        var redirects = 0
        var refreshes = 0
    }

    private let state = Mutex(State())

    /// Creates a client from one or more nodes' addresses; nothing is contacted until the first command.
    package init(seeds: [RedisEndpoint], options: RedisClientOptions = RedisClientOptions()) {
        self.seeds = seeds
        self.options = options
    }

    /// Sends a command about `key` to the slot's primary, following redirections.
    @discardableResult
    package func send(_ command: RESPCommand, routedBy key: Data) async throws(RedisError) -> RESPValue {
        let slot = HashSlot.slot(of: key)
        var askTarget: RedisEndpoint?
        var redirects = 0
        var refreshedAfterFailure = false
        while true {
            let node: RedisEndpoint
            if let askTarget { node = askTarget } else { node = try await owner(of: slot) }
            let commands = askTarget == nil ? [command] : [RESPCommand("ASKING"), command]
            askTarget = nil
            let reply: RESPValue
            do {
                reply = try await pool(for: node).send(commands).last!
            } catch  where error.isConnectionFailure {
                guard !refreshedAfterFailure else { throw .slotUnavailable(slot: slot, reason: error.description) }
                refreshedAfterFailure = true
                try? await refreshMap()
                continue
            }
            guard case .error(let message) = reply else { return reply }
            guard let redirect = ClusterRedirect(errorMessage: message, queried: node) else {
                throw .serverError(endpoint: node.description, command: command.name, message: message)
            }
            redirects += 1
            state.withLock { $0.redirects += 1 }
            guard redirects <= Self.maximumRedirects else {
                throw .tooManyRedirects(command: command.name, slot: slot, count: redirects)
            }
            switch redirect.kind {
            case .ask:
                askTarget = redirect.endpoint
            case .moved:
                state.withLock { $0.map[redirect.slot] = redirect.endpoint }
                try? await refreshMap()
                state.withLock { $0.map[redirect.slot] = $0.map[redirect.slot] ?? redirect.endpoint }
            }
        }
    }

    /// The primary currently serving `slot`, reading the slot map if it is not known yet.
    package func primary(forSlot slot: Int) async throws(RedisError) -> RedisEndpoint {
        try await owner(of: slot)
    }

    /// The pool of a node, created on first use.
    func pool(for node: RedisEndpoint) -> RedisConnectionPool {
        state.withLock { state in
            if let pool = state.pools[node] { return pool }
            let pool = RedisConnectionPool(endpoint: node, options: options)
            state.pools[node] = pool
            return pool
        }
    }

    func owner(of slot: Int) async throws(RedisError) -> RedisEndpoint {
        if let node = state.withLock({ $0.map[slot] }) { return node }
        try await refreshMap()
        guard let node = state.withLock({ $0.map[slot] }) else {
            throw .slotUnavailable(slot: slot, reason: "no node of the cluster serves it (CLUSTER SLOTS)")
        }
        return node
    }

    /// Reads the slot map from the first node that answers: the known primaries, then the seeds.
    func refreshMap() async throws(RedisError) {
        let known = state.withLock { $0.map.primaries }
        var lastError = RedisError.slotUnavailable(slot: 0, reason: "no seed node given")
        var tried = Set<RedisEndpoint>()
        for node in known + seeds where tried.insert(node).inserted {
            do throws(RedisError) {
                let reply = try await pool(for: node).send([RESPCommand("CLUSTER", "SLOTS")])[0]
                if case .error(let message) = reply {
                    throw .serverError(endpoint: node.description, command: "CLUSTER SLOTS", message: message)
                }
                let map = try ClusterSlotMap(slotsReply: reply, queried: node)
                state.withLock { state in
                    state.map = map
                    state.refreshes += 1
                }
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// The primaries, reading the slot map if it is not known yet.
    func knownPrimaries() async throws(RedisError) -> [RedisEndpoint] {
        if state.withLock({ $0.map.isEmpty }) { try await refreshMap() }
        return state.withLock { $0.map.primaries }
    }

    var countersSnapshot: (pools: [RedisConnectionPool], redirects: Int, refreshes: Int) {
        state.withLock { (Array($0.pools.values), $0.redirects, $0.refreshes) }
    }
}
