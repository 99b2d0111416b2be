import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsRedis

@Suite("Redis addresses, hash slots and the entry format")
struct RedisFormatTests {
    @Test func crc16MatchesTheClusterSpecification() {
        // The specification's check value, and slots redis-cli reports (CLUSTER KEYSLOT)
        #expect(HashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(HashSlot.slot(of: Array("foo".utf8)) == 12_182)
        #expect(
            HashSlot.slot(of: Array("{user1000}.following".utf8))
                == HashSlot.slot(of: Array("{user1000}.followers".utf8)))
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
            created: Date(timeIntervalSince1970: 1_700_000_000.123_456),
            expires: Date(timeIntervalSince1970: 1_800_000_000),
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

    @Test func metadataWrittenInPlaceReplacesTheOldAndKeepsTheBytes() throws {
        // Given a value of the current format
        let old = CacheMetadata(etag: "\"old\"")
        var value = try RedisEntryFormat.encode(CacheEntry(data: Data([7, 8, 9]), metadata: old))
        #expect(value[4] == RedisEntryFormat.version)

        // When new, longer metadata is written over the old at the length's offset (as SETRANGE does)
        let new = CacheMetadata(
            expires: Date(timeIntervalSince1970: 1_800_000_000), freshUntil: Date(timeIntervalSince1970: 1_700_000_000),
            etag: "\"a longer validator\"", partition: .image)
        let update = try #require(RedisEntryFormat.metadataUpdate(new))
        value.replaceSubrange(
            RedisEntryFormat.lengthOffset..<(RedisEntryFormat.lengthOffset + update.count), with: update)

        // Then the value decodes to the new metadata and the same bytes, and its partition is the new one
        let decoded = try RedisEntryFormat.decode(value)
        #expect(decoded.metadata == new)
        #expect(decoded.data == Data([7, 8, 9]))
        #expect(try RedisEntryFormat.partition(inPrefix: value) == "image")
    }

    @Test(arguments: [
        Data(), Data("MARE".utf8), Data("XXXX\u{1}\0\0\0\0".utf8), Data("MARE\u{2}\0\0\0\0".utf8),
        Data("MARE\u{1}\u{ff}\0\0\0{}".utf8), Data("MARE\u{1}\0\0\0\u{2}[]".utf8), Data("MARE\u{3}\0\0\0".utf8),
        Data("MARE\u{3}\0\0\0\u{1}\0\0\0\u{2}ab".utf8), Data("MARE\u{3}\0\0\u{1}\0\0\0\0\0ab".utf8),
        Data("MARE\u{4}\0\0\0\0".utf8),
    ])
    func corruptValuesAreTypedErrors(value: Data) {
        #expect(throws: RedisEntryFormat.Invalid.self) { try RedisEntryFormat.decode(value) }
    }
}

@Suite("Flat record coder")
struct FlatRecordCoderTests {
    /// A String RawRepresentable, as LRUCacheType is (it becomes Codable on the storage branch).
    struct Partition: RawRepresentable, Codable, Equatable {
        var rawValue: String
    }

    /// CacheMetadata as a later version declares it, with a partition.
    struct LaterMetadata: Codable, Equatable {
        var created: Date
        var lastAccess: Date
        var expires: Date?
        var etag: String?
        var partition: Partition?
        var generation: Int
        var pinned: Bool
    }

    @Test func aFieldAddedLaterRoundTripsByName() throws {
        // Given a record with fields CacheMetadata does not have yet
        let later = LaterMetadata(
            created: Date(timeIntervalSince1970: 1_700_000_000.123_456_7), lastAccess: Date(timeIntervalSince1970: 0),
            expires: nil, etag: "\"x\"", partition: Partition(rawValue: "image"), generation: -3, pinned: true)

        // When it is encoded flat and read back as itself, and as today's CacheMetadata
        let bytes = try FlatRecordCoder.encode(later)
        let fields = try FlatRecordCoder.fields(bytes)
        let again = try FlatRecordCoder.decode(LaterMetadata.self, from: fields)
        let today = try FlatRecordCoder.decode(CacheMetadata.self, from: fields)

        // Then every field survives bit for bit, and today's type reads the fields it knows
        #expect(again == later)
        #expect(fields["partition"] == .string("image"))
        #expect(today.created == later.created && today.etag == "\"x\"" && today.expires == nil)
    }

    @Test func aNestedValueIsRefusedSoTheFormatFallsBackToJSON() {
        struct Nested: Codable { var inner: [Int] }
        #expect(throws: FlatRecordCoder.Unsupported.self) { try FlatRecordCoder.encode(Nested(inner: [1])) }
    }

    @Test func storedEntriesUseTheFlatRecord() throws {
        let value = try RedisEntryFormat.encode(CacheEntry(data: Data([1]), metadata: CacheMetadata(etag: "e")))
        #expect(value[4] == RedisEntryFormat.version)
        #expect(try RedisEntryFormat.decode(value).metadata.etag == "e")
    }
}
