import Foundation
import MediaAssets
import MediaAssetsEncryption
import MediaAssetsRedis
import MediaAssetsSQLite

// DocC: MediaAssetsEncryption (the landing page)
func doccEncryptionAtRest(manager: AssetsManager) throws {
    let keys = try KeyRing(contentsOf: URL(fileURLWithPath: "/etc/myapp/cache-keys"))
    let encryptedDisk = try manager.encryptAtRest(.disk, keys: keys)  // .hybrid(t) uses it from now on
    print(encryptedDisk)
}

// DocC: MediaAssetsRedis (the landing page)
func doccRedisTier(manager: AssetsManager, memory: MemoryCache, disk: DiskCache) throws {
    let redis = RedisBackend(configuration: try .init(address: "redis://127.0.0.1:6379"))
    let tiered = TieredBackend(tiers: [.required(memory), .required(disk), .bestEffort(redis)])
    manager.register(tiered, for: .hybrid(.image))
}

// DocC: MediaAssetsSQLite (the landing page)
func doccSQLite(manager: AssetsManager, cacheDirectory: URL) throws {
    let sqlite = try SQLiteBackend(configuration: .init(path: cacheDirectory.appendingPathComponent("cache.db")))
    manager.register(sqlite, for: .disk)
}
