import Foundation

extension RedisClusterClient: RedisCommandRouting {
    /// Groups the commands by the node that owns each key's slot and pipelines each group; a command
    /// answered with a redirect or on a failed node is retried alone through `send(_:routedBy:)`.
    package func sendBatch(_ commands: [(command: RESPCommand, key: Data)]) async -> [Result<RESPValue, RedisError>] {
        do throws(RedisError) {
            return try await runBlocking { [self] () throws(RedisError) in batchBlocking(commands) }
        } catch {
            return Array(repeating: .failure(error), count: commands.count)
        }
    }

    private func batchBlocking(_ commands: [(command: RESPCommand, key: Data)]) -> [Result<RESPValue, RedisError>] {
        var results = [Result<RESPValue, RedisError>?](repeating: nil, count: commands.count)
        var groups: [RedisEndpoint: [Int]] = [:]
        for (index, item) in commands.enumerated() {
            do {
                let node = try owner(of: HashSlot.slot(of: item.key))
                groups[node, default: []].append(index)
            } catch {
                results[index] = .failure(error)
            }
        }
        for (node, indices) in groups {
            let replies = try? pool(for: node).withConnection { connection throws(RedisError) in
                try connection.pipeline(indices.map { commands[$0].command })
            }
            for (position, index) in indices.enumerated() {
                if let reply = replies?[position], !reply.isError { results[index] = .success(reply) }
            }
        }
        // Whatever was redirected, refused or lost goes again alone, with the full routing rules.
        for index in results.indices where results[index] == nil {
            results[index] = Result { () throws(RedisError) in
                try sendBlocking(commands[index].command, key: commands[index].key)
            }
        }
        return results.map { $0! }
    }

    package func send(_ commands: [RESPCommand], to node: RedisEndpoint) async throws(RedisError) -> [RESPValue] {
        try await runBlocking { [self] () throws(RedisError) in
            try pool(for: node).withConnection { connection throws(RedisError) in try connection.pipeline(commands) }
        }
    }

    package func primaries() async throws(RedisError) -> [RedisEndpoint] {
        try await runBlocking { [self] () throws(RedisError) in try primariesBlocking }
    }

    package var transportCounters: RedisTransportCounters {
        let snapshot = countersSnapshot
        var counters = RedisTransportCounters()
        for pool in snapshot.pools { counters.add(pool.counters) }
        counters.redirects = snapshot.redirects
        counters.slotMapRefreshes = snapshot.refreshes
        return counters
    }
}

extension RESPValue {
    var isError: Bool {
        if case .error = self { return true }
        return false
    }
}
