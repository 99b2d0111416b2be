import Foundation
import MediaAssetsImage

/// An animation ready to draw: the parsed model and every image asset decoded beside it.
///
/// `AnimationUtil.loadedAnimation(for:options:storageType:)` makes one: external images (`u` + `p`)
/// fetched through `ImageUtil`, embedded data URLs decoded, each through the image format plugins.
/// It is kept in the animation's memory partition as one entry charged `estimatedMemoryCost`.
public struct LoadedAnimation: Sendable {
    /// The parsed, validated animation.
    public let animation: LottieDocument
    /// The decoded image assets, in document order.
    public let images: [LoadedImageAsset]
    /// The assets that failed and got a placeholder (only under `FailurePolicy.placeholder`).
    public let failures: [AnimationAssetError]

    /// Creates a loaded animation from its parts.
    package init(animation: LottieDocument, images: [LoadedImageAsset], failures: [AnimationAssetError] = []) {
        self.animation = animation
        self.images = images
        self.failures = failures
    }

    /// The decoded image of the asset with `id`, if the animation has one.
    public func image(forAssetID id: String) -> Image? {
        images.first { $0.assetID == id }?.image
    }

    /// The bytes this value holds: the model's estimate plus every decoded bitmap.
    ///
    /// - Complexity: O(n) in the number of layers, assets and markers.
    public var estimatedMemoryCost: Int {
        animation.estimatedMemoryCost + images.reduce(0) { $0 + $1.image.cost }
    }
}

/// One decoded image asset of a `LoadedAnimation`.
public struct LoadedImageAsset: Sendable, Hashable {
    /// Where the image came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// Fetched from this URL through `ImageUtil` (from memory, storage or the network).
        case external(URL)
        /// Decoded from the animation's data URL.
        case embedded
        /// A transparent stand-in for an asset that failed (see `LoadedAnimation.failures`).
        case placeholder

        public var description: String {
            switch self {
            case let .external(url): return url.absoluteString
            case .embedded: return "embedded"
            case .placeholder: return "placeholder"
            }
        }
    }

    /// The asset's `id`, which image layers name in `refId`.
    public let assetID: String
    /// Where the image came from.
    public let origin: Origin
    /// The decoded bitmap.
    public let image: Image

    /// Creates a loaded image asset.
    package init(assetID: String, origin: Origin, image: Image) {
        self.assetID = assetID
        self.origin = origin
        self.image = image
    }

    /// The URL of an external image, nil otherwise.
    public var url: URL? {
        if case let .external(url) = origin { return url }
        return nil
    }
}
