/// One entry of an animation's `assets` list.
public enum LottieAsset: Sendable, Hashable {
    /// An image, external or embedded.
    case image(LottieImageAsset)
    /// A precomposition (an asset with `layers`).
    case precomposition(LottiePrecomposition)

    /// The asset's identifier (`id`).
    public var id: String {
        switch self {
        case let .image(image): return image.id
        case let .precomposition(precomposition): return precomposition.id
        }
    }
}
