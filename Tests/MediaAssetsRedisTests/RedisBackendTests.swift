import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsRedis

@Suite("RedisBackend", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisBackendTests {
    static func backend(_ server: RedisServer, prefix: String) -> RedisBackend {
        RedisBackend(
            configuration: .init(servers: .single(.tcp(host: "127.0.0.1", port: server.port)), keyPrefix: prefix))
    }

    @Test func expiryBecomesAServerSideTimeToLive() async throws {
        // Given an entry that expires in a minute
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("expiry")
        let backend = Self.backend(server, prefix: prefix)
        try await backend.store(
            CacheEntry(data: Data([1]), metadata: CacheMetadata(expires: Date(timeIntervalSinceNow: 60))), forKey: "k")

        // When its time to live is asked of Redis
        let client = try RedisClient(address: server.address)
        let reply = try await client.send(RESPCommand("PTTL", RESPArgument(prefix + "k")))

        // Then Redis will drop it itself within the minute
        guard case .integer(let milliseconds) = reply else {
            throw RedisError.unexpectedReply(endpoint: "", command: "PTTL", reply: "\(reply)")
        }
        #expect(milliseconds > 0 && milliseconds <= 60_000)
    }

    @Test func theLimitIsTheServersMaxmemory() async throws {
        // Given a server limited to 2 MiB with an LRU policy
        let server = try await RedisServer.start(configuration: ["maxmemory 2mb", "maxmemory-policy allkeys-lru"])
        defer { server.stop() }
        let backend = Self.backend(server, prefix: "limit:")

        // When its limits are read and an entry larger than the whole memory is stored
        let limits = try await backend.refreshServerLimits()
        try await backend.store(CacheEntry(data: Data(count: 3 << 20)), forKey: "too large")

        // Then the limit is reported, and the entry declined and counted rather than thrown
        #expect(limits.maxmemory == 2 << 20)
        #expect(limits.evictsByUse)
        #expect(backend.byteLimit == 2 << 20)
        #expect(backend.redisStatistics().rejectedTooLarge == 1)
        #expect(try await backend.entry(forKey: "too large") == nil)
    }

    @Test func prefixRemovalEscapesGlobCharacters() async throws {
        // Given keys full of glob characters, some under the removed prefix
        let server = try await SharedRedisServer.get()
        let backend = Self.backend(server, prefix: SharedRedisServer.uniquePrefix("glob*?[x]"))
        let removed: [CacheKey] = ["v*[1]?\\#0", "v*[1]?\\#meta"]
        let kept: [CacheKey] = ["v*[1]?\\x", "vX[1]?\\#0", "v*[2]?\\#0", "v"]
        for key in removed + kept { try await backend.store(CacheEntry(data: Data(key.rawValue.utf8)), forKey: key) }

        // When the prefix is removed
        try await backend.removeEntries(.keyPrefix("v*[1]?\\#"))

        // Then exactly the keys starting with it are gone
        for key in removed { #expect(try await backend.entry(forKey: key) == nil, "\(key)") }
        for key in kept { #expect(try await backend.entry(forKey: key) != nil, "\(key)") }
    }

    @Test func partitionRemovalReadsEachValuesMetadata() async throws {
        // Given values stored through .hybrid(.image) and .hybrid(.lottie) (metadata.partition, as a
        // newer writer stores it; one with metadata longer than the first GETRANGE) and one without
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("partition")
        let backend = Self.backend(server, prefix: prefix)
        let client = try RedisClient(address: server.address)
        let longTag = String(repeating: "e", count: 10_000)
        let values = [
            ("image-1", #"{"created":0,"lastAccess":0,"partition":"image"}"#),
            ("image-long", #"{"created":0,"lastAccess":0,"etag":"\#(longTag)","partition":"image"}"#),
            ("lottie-1", #"{"created":0,"lastAccess":0,"partition":"lottie"}"#),
        ]
        for (key, json) in values {
            try await client.send(RESPCommand("SET", RESPArgument(prefix + key), RESPArgument(Self.value(json: json))))
        }
        try await backend.store(CacheEntry(data: Data([1])), forKey: "plain")

        // When the image partition is removed
        try await backend.removeEntries(.partition(.image))

        // Then only its entries are gone
        #expect(try await backend.entry(forKey: "image-1") == nil)
        #expect(try await backend.entry(forKey: "image-long") == nil)
        #expect(try await backend.entry(forKey: "lottie-1")?.data == Data([7]))
        #expect(try await backend.entry(forKey: "plain") != nil)
    }

    @Test func aCorruptValueIsAMissAndIsRemoved() async throws {
        // Given a value under the prefix that is not an entry
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("corrupt")
        let backend = Self.backend(server, prefix: prefix)
        let client = try RedisClient(address: server.address)
        try await client.send(RESPCommand("SET", RESPArgument(prefix + "k"), "MARE\u{1}garbage"))

        // When it is read
        let entry = try await backend.entry(forKey: "k")

        // Then it is a miss, counted, and gone
        #expect(entry == nil)
        #expect(backend.redisStatistics().corruptValues == 1)
        #expect(await backend.statistics().errors == 1)
        #expect(try await client.send(RESPCommand("EXISTS", RESPArgument(prefix + "k"))) == .integer(0))
    }

    @Test func twoBackendsOnOneServerSeeEachOthersEntries() async throws {
        // Given two backends (as two processes would have) on one server and prefix
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("shared")
        let writer = Self.backend(server, prefix: prefix)
        let reader = Self.backend(server, prefix: prefix)

        // When one stores a batch, pipelined
        let entries = (0..<50).map { (key: CacheKey("item-\($0)"), entry: CacheEntry(data: Data("value \($0)".utf8))) }
        try await writer.store(entries)

        // Then the other reads every entry
        for (key, entry) in entries { #expect(try await reader.entry(forKey: key)?.data == entry.data) }
        #expect(await reader.statistics().count == 50)
    }

    static func value(json: String) -> Data {
        let metadata = Data(json.utf8)
        var value = Data("MARE".utf8) + [1]
        withUnsafeBytes(of: UInt32(metadata.count).bigEndian) { value.append(contentsOf: $0) }
        return value + metadata + Data([7])
    }
}
