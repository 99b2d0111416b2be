import MediaAssets

/// How `AnimationUtil.loadedAnimation(for:options:storageType:)` gets an animation's image assets.
public struct AnimationAssetOptions: Sendable, Hashable {
    /// What happens when an image asset is missing or does not decode.
    public enum FailurePolicy: Sendable, Hashable {
        /// The load fails with the asset's `AnimationAssetError` (the default): a player never shows
        /// an animation with holes.
        case fail
        /// The asset gets a transparent placeholder of its declared size (at most `maximumSide` per
        /// side) and the failure is listed in `LoadedAnimation.failures`.
        case placeholder(maximumSide: Int)
    }

    /// What happens when an image asset is missing or does not decode.
    public var failurePolicy: FailurePolicy {
        didSet { identifier = Self.identifier(failurePolicy, imageStorageType) }
    }
    /// Where external images are fetched and cached through `ImageUtil`: `nil` (the default) for the image
    /// util's own `configuration.storageType`, so animations and the app's images that share an image
    /// share its download, its decode and its cache entry.
    public var imageStorageType: StorageType? {
        didSet { identifier = Self.identifier(failurePolicy, imageStorageType) }
    }
    /// A short stable name of the options: part of the memory key of a loaded animation. Kept up to date
    /// as the options change, so that a memory hit does not build it.
    private(set) var identifier: String

    /// Creates options: fail on a bad asset, images cached where the image util keeps its images.
    public init(failurePolicy: FailurePolicy = .fail, imageStorageType: StorageType? = nil) {
        self.failurePolicy = failurePolicy
        self.imageStorageType = imageStorageType
        self.identifier = Self.identifier(failurePolicy, imageStorageType)
    }

    private static func identifier(_ failurePolicy: FailurePolicy, _ imageStorageType: StorageType?) -> String {
        let failures: String
        switch failurePolicy {
        case .fail: failures = "fail"
        case let .placeholder(side): failures = "placeholder-\(side)"
        }
        return "assets(\(failures),\(imageStorageType.map { "\($0)" } ?? "images"))"
    }
}
