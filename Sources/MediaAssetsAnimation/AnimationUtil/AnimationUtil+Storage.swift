import Foundation
import MediaAssets

extension AnimationUtil {
    /// Removes the animation `request` names from every storage type: its bytes, the parsed and
    /// loaded animations kept in memory under keys derived from it, and the writes still staged for
    /// them (`AssetsManager.removeAsset(forKey:)`). Images it references by URL are assets of their
    /// own (`ImageUtil.removeAsset(for:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        try await manager.removeAsset(forKey: manager.cacheKey(for: request))
    }

    /// Removes the animation at `url` from every storage type; see `removeAsset(for:)`.
    public func removeAsset(for url: URL) async throws {
        try await removeAsset(for: AssetRequest(url: url))
    }

    /// Keeps the animation `request` names, and what is derived from it, from eviction in
    /// `storageType` (memory and disk for `.hybrid(.lottie)`), within the pinned quota: onboarding
    /// animations an app must show offline.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing pinned), `AssetsError.unsupported`.
    public func pinAsset(for request: AssetRequest, storageType: StorageType = .hybrid(.lottie)) async throws {
        try await manager.pin(.asset(manager.cacheKey(for: request)), storageType: storageType)
    }

    /// Lets the animation `request` names be evicted again from `storageType`.
    public func unpinAsset(for request: AssetRequest, storageType: StorageType = .hybrid(.lottie)) async throws {
        try await manager.unpin(.asset(manager.cacheKey(for: request)), storageType: storageType)
    }
}
