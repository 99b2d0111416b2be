import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsRedis

/// Routing over a real three-master cluster of its own per test: redirects and a dead node.
@Suite("Redis Cluster", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisClusterTests {
    static func backend(_ cluster: RedisCluster, seeds: [RedisServer]? = nil) -> RedisBackend {
        let options = RedisClientOptions(
            connectTimeout: .milliseconds(300), readTimeout: .milliseconds(500),
            initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(50))
        let seeds = (seeds ?? cluster.nodes).map { RedisEndpoint.tcp(host: "127.0.0.1", port: $0.port) }
        return RedisBackend(configuration: .init(servers: .cluster(seeds: seeds), options: options, keyPrefix: "c:"))
    }

    /// A key (under the backend's prefix "c:") whose slot lies in node `index`'s third of the slots.
    static func key(onNode index: Int, _ name: String) -> CacheKey {
        let ranges = [0...5_460, 5_461...10_922, 10_923...16_383]
        for suffix in 0... {
            let key = CacheKey("\(name)-\(suffix)")
            if ranges[index].contains(HashSlot.slot(of: Array(("c:" + key.rawValue).utf8))) { return key }
        }
        fatalError("unreachable")
    }

    @Test func followsMovedAfterASlotChangesOwner() async throws {
        // Given a backend that learned the slot map from one seed, and an empty slot of node 0
        let cluster = try await RedisCluster.start()
        defer { cluster.stop() }
        let backend = Self.backend(cluster, seeds: [cluster.nodes[1]])
        try await backend.store(CacheEntry(data: Data("warm".utf8)), forKey: Self.key(onNode: 2, "warm"))
        let key = Self.key(onNode: 0, "moving")
        let slot = HashSlot.slot(of: Array(("c:" + key.rawValue).utf8))

        // When the slot is given to node 1 behind the backend's back (target first, then the others)
        let target = try cluster.nodes[1].cli(["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
        for node in [cluster.nodes[1], cluster.nodes[0], cluster.nodes[2]] {
            let answer = try node.cli(["CLUSTER", "SETSLOT", String(slot), "NODE", target])
            #expect(answer.contains("OK"), "SETSLOT on \(node.port): \(answer)")
        }
        try await backend.store(CacheEntry(data: Data("moved".utf8)), forKey: key)

        // Then the store followed the MOVED to node 1, where the value now lives
        #expect(try await backend.entry(forKey: key)?.data == Data("moved".utf8))
        #expect(backend.redisStatistics().transport.redirects >= 1)
        #expect(try cluster.nodes[1].cli(["EXISTS", "c:" + key.rawValue]).contains("1"))
    }

    @Test func followsAskWhileASlotMigrates() async throws {
        // Given a backend that knows the cluster, and an empty slot of node 0 migrating to node 2
        let cluster = try await RedisCluster.start()
        defer { cluster.stop() }
        let backend = Self.backend(cluster)
        try await backend.store(CacheEntry(data: Data("warm".utf8)), forKey: Self.key(onNode: 1, "warm"))
        let key = Self.key(onNode: 0, "migrating")
        let slot = String(HashSlot.slot(of: Array(("c:" + key.rawValue).utf8)))
        let source = try cluster.nodes[0].cli(["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let target = try cluster.nodes[2].cli(["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cluster.nodes[2].cli(["CLUSTER", "SETSLOT", slot, "IMPORTING", source]).contains("OK"))
        #expect(try cluster.nodes[0].cli(["CLUSTER", "SETSLOT", slot, "MIGRATING", target]).contains("OK"))

        // When the key is stored and read: node 0 no longer has it, so it answers ASK
        try await backend.store(CacheEntry(data: Data("asked".utf8)), forKey: key)
        let entry = try await backend.entry(forKey: key)

        // Then both went to node 2 with ASKING, and the slot map was left as it was
        #expect(entry?.data == Data("asked".utf8))
        #expect(backend.redisStatistics().transport.redirects == 2)
    }

    @Test func aKilledNodeTurnsIntoMissesAndErrorsForItsSlotsOnly() async throws {
        // Given entries on every node
        let cluster = try await RedisCluster.start()
        defer { cluster.stop() }
        let backend = Self.backend(cluster)
        let keys = (0..<3).map { Self.key(onNode: $0, "node\($0)") }
        for key in keys { try await backend.store(CacheEntry(data: Data(key.rawValue.utf8)), forKey: key) }

        // When node 2 is killed
        cluster.nodes[2].kill()

        // Then its key misses and cannot be written, with a typed error; the others still work
        #expect(try await backend.entry(forKey: keys[2]) == nil)
        await #expect {
            try await backend.store(CacheEntry(data: Data("x".utf8)), forKey: keys[2])
        } throws: { error in
            (error as? RedisError)?.isConnectionFailure == true
        }
        #expect(try await backend.entry(forKey: keys[0])?.data == Data(keys[0].rawValue.utf8))
        #expect(try await backend.entry(forKey: keys[1])?.data == Data(keys[1].rawValue.utf8))
        try await backend.store(CacheEntry(data: Data("still".utf8)), forKey: keys[0])
        #expect(backend.redisStatistics().remoteErrors >= 2)
    }
}
