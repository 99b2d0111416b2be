import Foundation
import MediaAssets
import MediaAssetsRedis
import TestSupport
import Testing

/// Pins against real servers: what a `maxmemory` policy evicts, and pins shared by processes.
@Suite("RedisBackend pins", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisPinTests {
    static func backend(
        _ server: RedisServer, prefix: String, unpinnedTimeToLive: Duration? = nil, refresh: Duration = .seconds(1)
    ) -> RedisBackend {
        RedisBackend(
            configuration: .init(
                servers: .single(.tcp(host: "127.0.0.1", port: server.port)), keyPrefix: prefix,
                unpinnedTimeToLive: unpinnedTimeToLive, pinRefreshInterval: refresh))
    }

    @Test func volatileLRUEvictsUnpinnedEntriesOnly() async throws {
        // Given a 4 MiB server that evicts only keys with a time to live, and a backend that gives
        // every unpinned entry one
        let server = try await RedisServer.start(configuration: ["maxmemory 4mb", "maxmemory-policy volatile-lru"])
        defer { server.stop() }
        let backend = Self.backend(server, prefix: "pins:", unpinnedTimeToLive: .seconds(86_400))
        #expect(try await backend.refreshServerLimits().keepsPinnedEntries)

        // When an asset is pinned, stored, and then unpinned entries of twice the memory go through
        try await backend.pin(.asset("avatar"))
        for suffix in ["", "@circle(96)", "@placeholder"] {
            try await backend.store(
                CacheEntry(data: Data(repeating: 1, count: 64 << 10)), forKey: CacheKey("avatar" + suffix))
        }
        for index in 0..<128 {
            try? await backend.store(
                CacheEntry(data: Data(repeating: 2, count: 64 << 10)), forKey: CacheKey("filler-\(index)"))
        }

        // Then Redis evicted unpinned entries and none of the pinned ones
        let statistics = await backend.statistics()
        #expect(statistics.evictions > 0, "\(statistics)")
        for suffix in ["", "@circle(96)", "@placeholder"] {
            #expect(
                try await backend.entry(forKey: CacheKey("avatar" + suffix))?.data.count == 64 << 10, "avatar\(suffix)")
        }
        #expect(statistics.pinnedCount == 3)
        let ttl = try server.cli(["PTTL", "pins:avatar"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(ttl == "-1", "a pinned value has no time to live")

        // And once unpinned, the entries get their time to live back
        try await backend.unpin(.asset("avatar"))
        let restored = try server.cli(["PTTL", "pins:avatar"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((Int(restored) ?? -1) > 0, "PTTL \(restored)")
        #expect(await backend.statistics().pinnedCount == 0)
    }

    @Test func allKeysPoliciesAreReportedAsNotKeepingPins() async throws {
        let server = try await RedisServer.start(configuration: ["maxmemory 2mb", "maxmemory-policy allkeys-lru"])
        defer { server.stop() }
        let limits = try await Self.backend(server, prefix: "any:").refreshServerLimits()
        #expect(!limits.keepsPinnedEntries && limits.evictsByUse)
    }

    @Test func pinsAreSharedByBackendsOnTheSamePrefix() async throws {
        // Given two backends (two processes) on one prefix, the second reading pins at once
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("shared-pins")
        let first = Self.backend(server, prefix: prefix)
        let second = Self.backend(server, prefix: prefix, refresh: .zero)

        // When the first pins an asset, the second's store under it is pinned, counted and persisted
        try await first.pin(.asset("clip"))
        try await second.store(CacheEntry(data: Data(count: 1_000)), forKey: "clip#0")
        #expect(try await second.pins() == [.asset("clip")])
        #expect(await first.statistics().pinnedCount == 1)
        let ttl = try SharedRedisServer.current().cli(["PTTL", prefix + "clip#0"])
        #expect(ttl.trimmingCharacters(in: .whitespacesAndNewlines) == "-1")

        // And removing everything under the prefix keeps the pins
        try await second.removeAll()
        #expect(try await first.pins() == [.asset("clip")])
        #expect(await first.statistics().pinnedCount == 0)
        try await first.unpin(.asset("clip"))
    }
}
