import Foundation
import MediaAssetsRedis
import MediaAssetsSQLite
import TestSupport
import Testing

@testable import MediaAssets
@testable import MediaAssetsEncryption

/// The shared conformance suite through an `EncryptedBackend` over each byte backend: sealing and
/// hashed names must keep every guarantee of the backend underneath.
@Suite("EncryptedBackend conformance")
struct EncryptedConformanceTests {
    static func encrypted(_ storage: any CacheBackend) -> EncryptedBackend {
        EncryptedBackend(wrapping: storage, keys: TestKeys.ring())
    }

    static let fixtures: [BackendFixture] = [
        BackendFixture(
            "encrypted disk",
            make: { encrypted(try DiskCache(directory: $0.appending("disk"), sizeLimit: 64 << 20)) },
            limited: { encrypted(try DiskCache(directory: $0.appending("disk"), sizeLimit: $1)) },
            failNextStore: { backend, key in
                let encrypted = try #require(backend as? EncryptedBackend)
                let disk = try #require(encrypted.storage as? DiskCache)
                let name = try encrypted.storageName(key)
                let blocker = disk.directory.appendingPathComponent(DiskCache.fileName(for: name) + ".tmp")
                try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
            },
            pinned: { directory, limit, quota in
                encrypted(
                    try DiskCache(
                        configuration: .init(
                            directory: directory.appending("disk"), sizeLimit: limit ?? 64 << 20, pinnedQuota: quota)))
            }
        ),
        BackendFixture(
            "encrypted sqlite",
            make: { encrypted(try SQLiteBackend(path: $0.appending("cache.sqlite"), sizeLimit: 64 << 20)) },
            limited: { encrypted(try SQLiteBackend(path: $0.appending("cache.sqlite"), sizeLimit: $1)) },
            pinned: { directory, limit, quota in
                encrypted(
                    try SQLiteBackend(
                        configuration: .init(
                            path: directory.appending("cache.sqlite"), sizeLimit: limit ?? 64 << 20,
                            pinnedQuota: quota)))
            }
        ),
    ]

    @Test(arguments: fixtures.flatMap { $0.conformanceCases() })
    func conformance(fixture: BackendFixture, check: BackendConformance) async throws {
        try await check.run(on: fixture)
    }

    static func redis(pinnedQuota: Int = 64 << 20) throws -> any CacheBackend {
        let server = try SharedRedisServer.current()
        return encrypted(
            RedisBackend(
                configuration: .init(
                    servers: .single(.tcp(host: "127.0.0.1", port: server.port)),
                    keyPrefix: SharedRedisServer.uniquePrefix("encrypted"), pinnedQuota: pinnedQuota)))
    }

    static let redisFixture = BackendFixture(
        "encrypted redis", make: { _ in try redis() }, pinned: { _, _, quota in try redis(pinnedQuota: quota) })

    @Test(.enabled(if: RedisServer.isInstalled, RedisServer.skipReason), arguments: redisFixture.conformanceCases())
    func overRedis(fixture: BackendFixture, check: BackendConformance) async throws {
        _ = try await SharedRedisServer.get()
        try await check.run(on: fixture)
    }
}
