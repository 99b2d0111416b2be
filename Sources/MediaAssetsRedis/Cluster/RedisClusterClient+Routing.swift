import Foundation

extension RedisClusterClient: RedisCommandRouting {
    /// Groups the commands by the node that owns each key's slot and pipelines each group, every
    /// group written before any reply is awaited (one round trip for all nodes); a command answered
    /// with a redirect or on a failed node is retried alone through `send(_:routedBy:)`.
    package func sendBatch(_ commands: [(command: RESPCommand, key: Data)]) async -> [Result<RESPValue, RedisError>] {
        var results = [Result<RESPValue, RedisError>?](repeating: nil, count: commands.count)
        var groups: [RedisEndpoint: [Int]] = [:]
        for (index, item) in commands.enumerated() {
            do throws(RedisError) {
                let node = try await owner(of: HashSlot.slot(of: item.key))
                groups[node, default: []].append(index)
            } catch {
                results[index] = .failure(error)
            }
        }
        var sent: [(indices: [Int], replies: RedisReplies)] = []
        for (node, indices) in groups {
            if let replies = try? await pool(for: node).submit(indices.map { commands[$0].command }) {
                sent.append((indices, replies))
            }
        }
        for (indices, replies) in sent {
            guard let values = try? await replies.value() else { continue }
            for (position, index) in indices.enumerated() where !values[position].isError {
                results[index] = .success(values[position])
            }
        }
        // Whatever was redirected, refused or lost goes again alone, with the full routing rules.
        for index in results.indices where results[index] == nil {
            do throws(RedisError) {
                results[index] = .success(try await send(commands[index].command, routedBy: commands[index].key))
            } catch {
                results[index] = .failure(error)
            }
        }
        return results.map { $0! }
    }

    package func send(_ commands: [RESPCommand], to node: RedisEndpoint) async throws(RedisError) -> [RESPValue] {
        try await pool(for: node).send(commands)
    }

    package func primaries() async throws(RedisError) -> [RedisEndpoint] {
        try await knownPrimaries()
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
