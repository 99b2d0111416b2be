import MediaAssets

/// Removing and pinning an animation (`removeAsset(for:)`, `pinAsset(for:storageType:)`): its bytes and the parsed
/// and loaded animations kept in memory under keys derived from it. Images it references by URL are assets of
/// their own (`ImageUtil.removeAsset(for:)`).
extension AnimationUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }
}
