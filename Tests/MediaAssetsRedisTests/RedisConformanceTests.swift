import Foundation
import MediaAssets
import MediaAssetsRedis
import TestSupport
import Testing

/// The shared conformance suite, unchanged, over a real redis-server and a real three-master cluster.
@Suite("RedisBackend conformance", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisConformanceTests {
    /// Every check that applies: the limit, eviction and failed-store checks take a fixture that can
    /// make a limited backend or fail its next store, which a shared server cannot (pinned entries
    /// against a real `maxmemory` are checked in `RedisPinTests`).
    static func single(pinnedQuota: Int = 64 << 20) throws -> any CacheBackend {
        let server = try SharedRedisServer.current()
        return RedisBackend(
            configuration: .init(
                servers: .single(.tcp(host: "127.0.0.1", port: server.port)),
                keyPrefix: SharedRedisServer.uniquePrefix("conformance"), pinnedQuota: pinnedQuota))
    }

    static func cluster(pinnedQuota: Int = 64 << 20) throws -> any CacheBackend {
        let cluster = try SharedRedisCluster.current()
        return RedisBackend(
            configuration: .init(
                servers: .cluster(seeds: cluster.nodes.map { .tcp(host: "127.0.0.1", port: $0.port) }),
                keyPrefix: SharedRedisServer.uniquePrefix("conformance"), pinnedQuota: pinnedQuota))
    }

    static let singleFixture = BackendFixture(
        "redis", make: { _ in try single() }, pinned: { _, _, quota in try single(pinnedQuota: quota) })

    static let clusterFixture = BackendFixture(
        "redis-cluster", make: { _ in try cluster() }, pinned: { _, _, quota in try cluster(pinnedQuota: quota) })

    @Test(arguments: singleFixture.conformanceCases())
    func overSingleServer(fixture: BackendFixture, check: BackendConformance) async throws {
        _ = try await SharedRedisServer.get()
        try await check.run(on: fixture)
    }

    @Test(arguments: clusterFixture.conformanceCases())
    func overCluster(fixture: BackendFixture, check: BackendConformance) async throws {
        _ = try await SharedRedisCluster.get()
        try await check.run(on: fixture)
    }
}
