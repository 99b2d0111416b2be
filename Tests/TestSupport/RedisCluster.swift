import Foundation

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
