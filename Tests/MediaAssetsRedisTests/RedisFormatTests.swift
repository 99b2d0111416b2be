import Foundation
import MediaAssets
@testable import MediaAssetsRedis
import Testing

@Suite("Redis addresses, hash slots and the entry format")
struct RedisFormatTests {
    @Test func crc16MatchesTheClusterSpecification() {
        // The specification's check value, and slots redis-cli reports (CLUSTER KEYSLOT)
        #expect(HashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(HashSlot.slot(of: Array("foo".utf8)) == 12_182)
        #expect(HashSlot.slot(of: Array("{user1000}.following".utf8)) == HashSlot.slot(of: Array("{user1000}.followers".utf8)))
        #expect(HashSlot.slot(of: Array("foo{}{bar}".utf8)) == HashSlot.slot(of: Array("foo{}{bar}".utf8)))
        #expect(HashSlot.slot(of: Array("{}x".utf8)) == Int(HashSlot.crc16(Array("{}x".utf8)) & 0x3FFF))
    }

    @Test func parsesAddresses() throws {
        let full = try RedisAddress("redis://alice:s%40cret@127.0.0.1:6380/3")
        #expect(full.endpoint == .tcp(host: "127.0.0.1", port: 6380))
        #expect(full.user == "alice")
        #expect(full.password == "s@cret")
        #expect(full.database == 3)
        let passwordOnly = try RedisAddress("redis://:pw@localhost")
        #expect(passwordOnly.user == nil && passwordOnly.password == "pw")
        #expect(passwordOnly.endpoint == .tcp(host: "localhost", port: 6379))
        #expect(try RedisAddress("unix:///tmp/redis.sock?db=2").endpoint == .unix(path: "/tmp/redis.sock"))
        #expect(throws: RedisError.self) { try RedisAddress("rediss://127.0.0.1") }
        #expect(throws: RedisError.self) { try RedisAddress("redis://127.0.0.1/x") }
        #expect(try RedisEndpoint(hostAndPort: "[::1]:7000") == .tcp(host: "::1", port: 7000))
    }

    @Test func entryFormatRoundTripsAndKeepsFieldsItDoesNotKnow() throws {
        // Given an entry with every metadata field set
        let metadata = CacheMetadata(
            created: Date(timeIntervalSince1970: 1_700_000_000.123_456), expires: Date(timeIntervalSince1970: 1_800_000_000),
            freshUntil: Date(timeIntervalSince1970: 1_750_000_000.5), etag: "\"e\"", lastModified: "Wed, 21 Oct 2015",
            contentType: "image/png")
        let value = try RedisEntryFormat.encode(CacheEntry(data: Data([1, 2, 3]), metadata: metadata))

        // When decoded, then everything is back, bit for bit
        let decoded = try RedisEntryFormat.decode(value)
        #expect(decoded.metadata == metadata)
        #expect(decoded.data == Data([1, 2, 3]))

        // And a value written by a newer version, with a partition, decodes and names it
        let json = Data(#"{"created":0,"lastAccess":0,"partition":"image","futureField":[1]}"#.utf8)
        var newer = Data("MARE".utf8) + [1]
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { newer.append(contentsOf: $0) }
        newer += json + Data([9])
        #expect(try RedisEntryFormat.decode(newer).data == Data([9]))
        #expect(try RedisEntryFormat.partition(inPrefix: newer) == "image")
    }

    @Test(arguments: [Data(), Data("MARE".utf8), Data("XXXX\u{1}\0\0\0\0".utf8), Data("MARE\u{2}\0\0\0\0".utf8),
                      Data("MARE\u{1}\u{ff}\0\0\0{}".utf8), Data("MARE\u{1}\0\0\0\u{2}[]".utf8)])
    func corruptValuesAreTypedErrors(value: Data) {
        #expect(throws: RedisEntryFormat.Invalid.self) { try RedisEntryFormat.decode(value) }
    }
}
