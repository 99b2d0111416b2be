import Foundation

/// A util over an `AssetsManager` (`ImageUtil`, `AnimationUtil`, `VideoUtil`, `HLSUtil`, or one of your own): the
/// calls every util offers for the assets it keeps, whatever their media type, written once.
///
/// Adopt it in a util of your own by naming its manager and where it keeps assets; removing, pinning and
/// unpinning an asset then read the same as on the package's utils.
public protocol AssetUtil: Sendable {
    /// The manager the util fetches and caches through.
    var manager: AssetsManager { get }
    /// Where the util keeps assets unless a call names another storage type (a util's
    /// `configuration.storageType`).
    var defaultStorageType: StorageType { get }

    /// Removes the asset `request` names from every storage type: its bytes and everything derived from its
    /// key (variants, placeholders, chunks, decoded objects), with the writes still staged for them, in one
    /// operation per backend (`AssetsManager.removeAsset(forKey:)`). A util that remembers more of an asset
    /// forgets it here too.
    func removeAsset(for request: AssetRequest) async throws
}

extension AssetUtil {
    /// Removes the asset through the manager (`AssetsManager.removeAsset(forKey:)`).
    public func removeAsset(for request: AssetRequest) async throws {
        try await manager.removeAsset(forKey: manager.cacheKey(for: request))
    }

    /// Removes the asset at `url` from every storage type; see `removeAsset(for:)`.
    public func removeAsset(for url: URL) async throws {
        try await removeAsset(for: AssetRequest(url: url))
    }

    /// Keeps the asset `request` names, and everything derived from its key, stored now or later, from
    /// eviction in `storageType` (`nil`: the util's `defaultStorageType`), within the backends' pinned quota:
    /// an app's own avatar, onboarding animations, a conversation's media.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing pinned), `AssetsError.unsupported`.
    public func pinAsset(for request: AssetRequest, storageType: StorageType? = nil) async throws {
        try await manager.pin(.asset(manager.cacheKey(for: request)), storageType: storageType ?? defaultStorageType)
    }

    /// Lets the asset `request` names be evicted again from `storageType` (`nil`: the util's
    /// `defaultStorageType`).
    public func unpinAsset(for request: AssetRequest, storageType: StorageType? = nil) async throws {
        try await manager.unpin(
            .asset(manager.cacheKey(for: request)), storageType: storageType ?? defaultStorageType)
    }
}
