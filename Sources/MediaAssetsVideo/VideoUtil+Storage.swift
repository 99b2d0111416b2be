import Foundation
import MediaAssets

extension VideoUtil {
    /// Removes the video `request` names from every storage type — its chunks, its chunk record and
    /// anything else derived from its key — in one call per backend, and forgets what this util
    /// knew of it (`AssetsManager.removeAsset(forKey:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        let key = manager.cacheKey(for: request)
        _ = state.withLock { $0.resources.removeValue(forKey: key) }
        try await manager.removeAsset(forKey: key)
    }

    /// Keeps the chunks of the video `request` names, cached now or later, from eviction in the
    /// util's storage type, within its pinned quota (a conversation's clips).
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing pinned), `AssetsError.unsupported`.
    public func pinAsset(for request: AssetRequest) async throws {
        try await manager.pin(.asset(manager.cacheKey(for: request)), storageType: configuration.storageType)
    }

    /// Lets the chunks of the video `request` names be evicted again.
    public func unpinAsset(for request: AssetRequest) async throws {
        try await manager.unpin(.asset(manager.cacheKey(for: request)), storageType: configuration.storageType)
    }
}

extension HLSUtil {
    /// Removes the playlist `request` names (and what is derived from its key) from every storage
    /// type. Segments, keys and init sections are assets of their own URLs: remove them with
    /// `removeAsset(for:)` of an `HLSResource`.
    public func removeAsset(for request: AssetRequest) async throws {
        try await manager.removeAsset(forKey: manager.cacheKey(for: request))
    }

    /// Removes a segment, key or init section (every byte range of its URL) from every storage type.
    public func removeAsset(for resource: HLSResource) async throws {
        try await manager.removeAsset(forKey: manager.cacheKey(for: AssetRequest(url: resource.uri)))
    }
}
