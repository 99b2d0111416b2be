import MediaAssets
import MediaAssetsRedis

/// README, "Sharing a cache across processes": .hybrid(.image) as memory → disk → Redis.
func shareImagesThroughRedis(manager: AssetsManager, disk: DiskCache) throws {
    let redis = RedisBackend(configuration: try .init(address: "redis://127.0.0.1:6379"))
    let tiered = TieredBackend(tiers: [
        .required(MemoryCache(limits: .init(costLimit: 64 << 20))), .required(disk), .bestEffort(redis),
    ])
    manager.register(tiered, for: .hybrid(.image))
}
