import Foundation
import MediaAssets
import MediaAssetsRedis
import TestSupport
import Testing

/// The shared conformance suite, unchanged, over a real redis-server and a real three-master cluster.
@Suite("RedisBackend conformance", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisConformanceTests {
    /// Every check that needs no more than a backend. The limit and failed-store checks take a fixture
    /// that can make a limited backend or fail its next store; neither applies to a shared server.
    static let checks = BackendConformance.allCases.filter {
        !["limits", "failedStoreKeepsWhatWasCached"].contains($0.rawValue)
    }

    static let singleFixture = BackendFixture("redis") { _ in
        let server = try SharedRedisServer.current()
        return RedisBackend(
            configuration: .init(
                servers: .single(.tcp(host: "127.0.0.1", port: server.port)),
                keyPrefix: SharedRedisServer.uniquePrefix("conformance")))
    }

    static let clusterFixture = BackendFixture("redis-cluster") { _ in
        let cluster = try SharedRedisCluster.current()
        return RedisBackend(
            configuration: .init(
                servers: .cluster(seeds: cluster.nodes.map { .tcp(host: "127.0.0.1", port: $0.port) }),
                keyPrefix: SharedRedisServer.uniquePrefix("conformance")))
    }

    @Test(arguments: [singleFixture], checks)
    func overSingleServer(fixture: BackendFixture, check: BackendConformance) async throws {
        _ = try await SharedRedisServer.get()
        try await fixture.withBackend { try await check.check($0) }
    }

    @Test(arguments: [clusterFixture], checks)
    func overCluster(fixture: BackendFixture, check: BackendConformance) async throws {
        _ = try await SharedRedisCluster.get()
        try await fixture.withBackend { try await check.check($0) }
    }
}
