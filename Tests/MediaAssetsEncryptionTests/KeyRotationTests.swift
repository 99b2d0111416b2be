import Foundation
import MediaAssets
import MediaAssetsRedis
import MediaAssetsSQLite
import TestSupport
import Testing

@testable import MediaAssetsEncryption

/// Rotation (new writes use the new key, reads accept every key the provider has, the sweep
/// re-encrypts) and crypto-shredding (a dropped key's entries are misses, gone after a sweep), over
/// each byte backend.
@Suite("Encryption at rest: key rotation and shredding")
struct KeyRotationTests {
    enum Storage: String, CaseIterable, CustomStringConvertible {
        case disk, sqlite, redis
        var description: String { rawValue }

        func make(_ directory: TemporaryDirectory) async throws -> any CacheBackend {
            switch self {
            case .disk: return try DiskCache(directory: directory.appending("disk"))
            case .sqlite: return try SQLiteBackend(path: directory.appending("cache.sqlite"))
            case .redis:
                let server = try await SharedRedisServer.get()
                return RedisBackend(
                    configuration: .init(
                        servers: .single(.tcp(host: "127.0.0.1", port: server.port)),
                        keyPrefix: SharedRedisServer.uniquePrefix("rotation")))
            }
        }

        static var available: [Storage] { RedisServer.isInstalled ? allCases : [.disk, .sqlite] }
    }

    static func body(_ index: Int) -> Data { Data("entry \(index) ".utf8) + Data(repeating: UInt8(index), count: 500) }

    @Test(arguments: Storage.available)
    func rotatedKeysEntriesReadBackAndTheSweepReencryptsThem(storage: Storage) async throws {
        // Given twelve entries sealed with k1
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ring = TestKeys.ring()
        let encrypted = EncryptedBackend(wrapping: try await storage.make(directory), keys: ring)
        for index in 0..<12 {
            let metadata = CacheMetadata(etag: "\"v\(index)\"")
            try await encrypted.store(CacheEntry(data: Self.body(index), metadata: metadata), forKey: "asset-\(index)")
        }

        // When k2 becomes current and one more entry is written
        ring.rotate(to: TestKeys.key("k2", fill: 2))
        try await encrypted.store(CacheEntry(data: Self.body(99)), forKey: "after-rotation")

        // Then the new write is sealed with k2, and every older entry still reads back with k1
        #expect(try await encrypted.sealingKeyID(of: "after-rotation") == "k2")
        #expect(try await encrypted.sealingKeyID(of: "asset-0") == "k1")
        for index in 0..<12 {
            let entry = try #require(try await encrypted.entry(forKey: "asset-\(index)"))
            #expect(entry.data == Self.body(index) && entry.metadata.etag == "\"v\(index)\"")
        }

        // When the sweep runs, it re-encrypts exactly the twelve older entries
        let report = try await encrypted.sweep(batchSize: 5)
        #expect(report.resealed == 12 && report.current == 1 && report.shredded == 0, "\(report)")
        #expect(try await encrypted.sealingKeyID(of: "asset-7") == "k2")

        // And once k1 is dropped, everything still reads back, and a second sweep has nothing to do
        #expect(ring.removeKey(withID: "k1"))
        for index in 0..<12 { #expect(try await encrypted.entry(forKey: "asset-\(index)")?.data == Self.body(index)) }
        let second = try await encrypted.sweep()
        #expect(second.current == 13 && second.resealed == 0, "\(second)")
        try await encrypted.removeAll()
    }

    @Test(arguments: Storage.available)
    func droppedKeysEntriesAreMissesAndGoneAfterASweep(storage: Storage) async throws {
        // Given eight entries sealed with k1 and four with k2
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ring = TestKeys.ring()
        let encrypted = EncryptedBackend(wrapping: try await storage.make(directory), keys: ring)
        for index in 0..<8 { try await encrypted.store(CacheEntry(data: Self.body(index)), forKey: "old-\(index)") }
        ring.rotate(to: TestKeys.key("k2", fill: 2))
        for index in 0..<4 { try await encrypted.store(CacheEntry(data: Self.body(index)), forKey: "new-\(index)") }
        #expect(await encrypted.storage.statistics().count == 12)

        // When k1 is dropped (crypto-shredding)
        #expect(ring.removeKey(withID: "k1"))

        // Then its entries are misses, and the two read are removed on sight
        #expect(try await encrypted.entry(forKey: "old-0") == nil)
        #expect(try await encrypted.entry(forKey: "old-1") == nil)
        #expect(await encrypted.storage.statistics().count == 10)
        #expect(encrypted.encryptionStatistics().shredded == 2)

        // And the sweep removes the other six, leaving k2's entries readable
        let report = try await encrypted.sweep()
        #expect(report.shredded == 6 && report.current == 4, "\(report)")
        #expect(await encrypted.storage.statistics().count == 4)
        for index in 0..<4 { #expect(try await encrypted.entry(forKey: "new-\(index)")?.data == Self.body(index)) }
        for index in 0..<8 { #expect(try await encrypted.entry(forKey: "old-\(index)") == nil) }
        try await encrypted.removeAll()
    }
}
