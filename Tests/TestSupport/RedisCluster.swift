import Foundation
import Synchronization

/// A three-master Redis Cluster of real `redis-server`s on free loopback ports, for tests.
public final class RedisCluster: Sendable {
    /// The nodes, in the order their slots run (node 0 serves the lowest slots).
    public let nodes: [RedisServer]

    /// The nodes' `host:port` texts.
    public var seeds: [String] { nodes.map { "127.0.0.1:\($0.port)" } }

    /// Starts three cluster-enabled servers, joins them (`redis-cli --cluster create`) and waits until
    /// every node reports `cluster_state:ok`.
    public static func start() async throws -> RedisCluster {
        var nodes: [RedisServer] = []
        do {
            for _ in 0..<3 {
                nodes.append(
                    try await RedisServer.start(
                        configuration: [
                            "cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout 1000",
                            "cluster-require-full-coverage no", "cluster-allow-reads-when-down yes",
                        ],
                        clusterBus: true))
            }
            let create = try nodes[0].cli(
                ["--cluster", "create"] + nodes.map { "127.0.0.1:\($0.port)" } + [
                    "--cluster-replicas", "0", "--cluster-yes",
                ])
            guard create.contains("All 16384 slots covered") else {
                throw ConditionTimedOut(condition: "redis-cli --cluster create: \(create.suffix(500))")
            }
            for node in nodes {
                try await waitUntil("cluster_state:ok on node \(node.port)", timeout: .seconds(60)) {
                    (try? node.cli(["CLUSTER", "INFO"]))?.contains("cluster_state:ok") == true
                }
            }
            return RedisCluster(nodes: nodes)
        } catch {
            for node in nodes { node.stop() }
            throw error
        }
    }

    private init(nodes: [RedisServer]) { self.nodes = nodes }

    /// Stops every node.
    public func stop() {
        for node in nodes { node.stop() }
    }
}

/// One three-master cluster shared by the tests of a process that only read and write through it
/// (each under its own key prefix); started on first use, stopped when the test process exits.
public enum SharedRedisCluster {
    private static let shared = SharedAtExit(start: { try await RedisCluster.start() }, stop: { $0.stop() })

    /// The shared cluster, started if needed.
    public static func get() async throws -> RedisCluster { try await shared.get() }

    /// The cluster once `get()` has returned, for synchronous fixtures; throws before that.
    public static func current() throws -> RedisCluster { try shared.current() }
}
