import MediaAssets

/// Removing and pinning an image (`removeAsset(for:)`, `pinAsset(for:storageType:)`): the original, every styled
/// variant, the placeholder and the decoded originals kept in memory.
extension ImageUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }
}
