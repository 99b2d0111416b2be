import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsRedis

/// A 304 rewrites the small metadata record of a value in place; batch reads are pipelined.
@Suite("RedisBackend metadata updates and batch reads", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisMetadataUpdateTests {
    static func backend(_ server: RedisServer, prefix: String = "meta:") -> RedisBackend {
        RedisBackend(
            configuration: .init(servers: .single(.tcp(host: "127.0.0.1", port: server.port)), keyPrefix: prefix))
    }

    /// A number the server reports in `INFO` (`name:value`, or `name=value` as in commandstats),
    /// asked through the test's own client: one read of the server's per call.
    static func info(_ client: RedisClient, _ section: String, _ name: String) async throws -> Int {
        let text = try await client.send(RESPCommand("INFO", RESPArgument(section))).text ?? ""
        let line = text.split(whereSeparator: \.isNewline).first {
            $0.hasPrefix(name + ":") || $0.hasPrefix(name + "=")
        }
        return line.flatMap { Int($0.dropFirst(name.count + 1).prefix { $0.isNumber }) } ?? 0
    }

    static func calls(_ client: RedisClient, _ command: String) async throws -> Int {
        try await info(client, "commandstats", "cmdstat_\(command):calls")
    }

    @Test func anUpdateRewritesTheMetadataInPlaceAndNeverSendsTheBytes() async throws {
        // Given a 256 KiB entry that expires in a minute
        let server = try await RedisServer.start()
        defer { server.stop() }
        let backend = Self.backend(server)
        let data = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let before = CacheMetadata(expires: Date(timeIntervalSinceNow: 60), etag: "\"v1\"", contentType: "image/png")
        try await backend.store(CacheEntry(data: data, metadata: before), forKey: "k")
        let client = try RedisClient(address: server.address)
        let sentBefore = try await Self.info(client, "stats", "total_net_input_bytes")

        // When a revalidation replaces its metadata (a new expiry, validator and partition)
        let after = CacheMetadata(
            expires: Date(timeIntervalSinceNow: 3_600), freshUntil: Date(timeIntervalSinceNow: 600), etag: "\"v2\"",
            contentType: "image/png", partition: .image)
        #expect(try await backend.updateMetadata(after, forKey: "k"))
        let sentAfter = try await Self.info(client, "stats", "total_net_input_bytes")

        // Then the value reads back with the same bytes and every new field
        let read = try #require(try await backend.entry(forKey: "k"))
        #expect(read.data == data)
        #expect(read.metadata == after)
        // And the server got one SETRANGE and no second SET: under 4 KiB went over the wire, the INFO
        // asking for the count included
        #expect(try await Self.calls(client, "set") == 1)
        #expect(try await Self.calls(client, "setrange") == 1)
        #expect(sentAfter - sentBefore < 4_096, "\(sentAfter - sentBefore) bytes sent")
        // And Redis drops it at the new expiry
        guard case .integer(let milliseconds) = try await client.send(RESPCommand("PTTL", "meta:k")) else {
            Issue.record("PTTL is not an integer")
            return
        }
        #expect(milliseconds > 600_000 && milliseconds <= 3_600_000)
    }

    @Test func aMissIsNotUpdatedAndValuesThatCannotBeUpdatedInPlaceAreStoredAgain() async throws {
        // Given a value of the previous format (no room for metadata) and an entry of the current one
        let server = try await RedisServer.start()
        defer { server.stop() }
        let backend = Self.backend(server)
        let client = try RedisClient(address: server.address)
        let record = try FlatRecordCoder.encode(CacheMetadata(etag: "\"old\""))
        var older = Data(RedisEntryFormat.magic + [RedisEntryFormat.flatVersion])
        withUnsafeBytes(of: UInt32(record.count).bigEndian) { older.append(contentsOf: $0) }
        older += record + Data([1, 2, 3])
        try await client.send(RESPCommand("SET", "meta:older", RESPArgument(older)))
        try await backend.store(CacheEntry(data: Data([4, 5, 6])), forKey: "current")

        // When a missing key is updated, then nothing is there and nothing was written
        #expect(try await backend.updateMetadata(CacheMetadata(etag: "\"new\""), forKey: "absent") == false)
        #expect(try await client.send(RESPCommand("EXISTS", "meta:absent")) == .integer(0))

        // And the older value is stored again whole, with its bytes
        #expect(try await backend.updateMetadata(CacheMetadata(etag: "\"new\""), forKey: "older"))
        let upgraded = try #require(try await backend.entry(forKey: "older"))
        #expect(upgraded.data == Data([1, 2, 3]) && upgraded.metadata.etag == "\"new\"")

        // And metadata that outgrew its room is stored again whole too
        let long = CacheMetadata(etag: String(repeating: "e", count: 500))
        #expect(try await backend.updateMetadata(long, forKey: "current"))
        let grown = try #require(try await backend.entry(forKey: "current"))
        #expect(grown.data == Data([4, 5, 6]) && grown.metadata.etag == long.etag)
        // One SET each for the store and the two entries stored again; SETRANGE for none of them
        #expect(try await Self.calls(client, "set") == 4)
        #expect(try await Self.calls(client, "setrange") == 0)
    }

    @Test func batchReadsArePipelinedInOneRoundTrip() async throws {
        // Given three stored entries
        let server = try await RedisServer.start()
        defer { server.stop() }
        let backend = Self.backend(server)
        for (index, key) in ["a", "b", "c"].enumerated() {
            try await backend.store(CacheEntry(data: Data([UInt8(index)])), forKey: CacheKey(key))
        }
        let client = try RedisClient(address: server.address)
        let readsBefore = try await Self.info(client, "stats", "total_reads_processed")

        // When four keys are read at once
        let entries = try await backend.entries(forKeys: ["a", "absent", "c", "b"])

        // Then each is as entry(forKey:) returns it, and the server read the four GETs in one go
        // (the second read is the INFO asking)
        #expect(entries.map { $0?.data } == [Data([0]), nil, Data([2]), Data([1])])
        let reads = try await Self.info(client, "stats", "total_reads_processed") - readsBefore
        #expect(reads == 2)
        #expect(backend.redisStatistics().hits == 3 && backend.redisStatistics().misses == 1)
    }

    @Test func batchReadsOnAClusterReachEveryNode() async throws {
        // Given entries on each of the three nodes of a cluster
        let cluster = try await SharedRedisCluster.get()
        let prefix = SharedRedisServer.uniquePrefix("batch")
        let backend = RedisBackend(
            configuration: .init(
                servers: .cluster(seeds: cluster.nodes.map { .tcp(host: "127.0.0.1", port: $0.port) }),
                keyPrefix: prefix))
        let keys = (0..<30).map { CacheKey("k\($0)") }
        for (index, key) in keys.enumerated() {
            try await backend.store(CacheEntry(data: Data([UInt8(index)])), forKey: key)
        }

        // When they are read in one batch with a missing key among them
        let entries = try await backend.entries(forKeys: keys + ["absent"])

        // Then every entry comes back in order
        #expect(entries.dropLast().map { $0?.data } == (0..<30).map { Data([UInt8($0)]) })
        #expect(entries.last! == nil)
        // And a metadata update works there too
        #expect(try await backend.updateMetadata(CacheMetadata(etag: "\"v\""), forKey: "k7"))
        #expect(try await backend.entry(forKey: "k7")?.metadata.etag == "\"v\"")
    }
}
