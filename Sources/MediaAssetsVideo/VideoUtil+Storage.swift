import Foundation
import MediaAssets

/// Removing and pinning a video (`removeAsset(for:)`, `pinAsset(for:storageType:)`): its chunks, its chunk
/// record and anything else derived from its key.
extension VideoUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }

    /// Removes the video `request` names from every storage type — its chunks, its chunk record and
    /// anything else derived from its key — in one call per backend, and forgets what this util
    /// knew of it (`AssetsManager.removeAsset(forKey:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        let key = manager.cacheKey(for: request)
        _ = state.withLock { $0.resources.removeValue(forKey: key) }
        try await manager.removeAsset(forKey: key)
    }
}

/// Removing and pinning a playlist (`removeAsset(for:)`, `pinAsset(for:storageType:)`) and what is derived from
/// its key. Segments, keys and init sections are assets of their own URLs: remove them with
/// `removeResource(_:)`.
extension HLSUtil: AssetUtil {
    /// The util's `storageType`.
    public var defaultStorageType: StorageType { storageType }

    /// Removes a segment, key or init section (every byte range of its URL) from every storage type.
    public func removeResource(_ resource: HLSResource) async throws {
        try await removeAsset(for: AssetRequest(url: resource.uri))
    }
}
