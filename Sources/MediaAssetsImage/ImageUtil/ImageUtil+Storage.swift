import Foundation
import MediaAssets

extension ImageUtil {
    /// Removes the image `request` names from every storage type: the original, every styled
    /// variant, the placeholder and the decoded originals kept in memory, with the writes still
    /// staged for them (`AssetsManager.removeAsset(forKey:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        try await manager.removeAsset(forKey: manager.cacheKey(for: request))
    }

    /// Removes the image at `url` from every storage type; see `removeAsset(for:)`.
    public func removeAsset(for url: URL) async throws {
        try await removeAsset(for: AssetRequest(url: url))
    }

    /// Keeps the image `request` names — the original, its variants and placeholder, stored now or
    /// later — from eviction in `storageType` (memory and disk for `.hybrid(.image)`), within the
    /// backends' pinned quota: an app's own avatar, a conversation's media.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing pinned), `AssetsError.unsupported`.
    public func pinAsset(for request: AssetRequest, storageType: StorageType = .hybrid(.image)) async throws {
        try await manager.pin(.asset(manager.cacheKey(for: request)), storageType: storageType)
    }

    /// Lets the image `request` names be evicted again from `storageType`.
    public func unpinAsset(for request: AssetRequest, storageType: StorageType = .hybrid(.image)) async throws {
        try await manager.unpin(.asset(manager.cacheKey(for: request)), storageType: storageType)
    }
}
