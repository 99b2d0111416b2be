/// A precomposition asset: a reusable list of layers that precomposition layers render by `refId`.
public struct LottiePrecomposition: Sendable, Hashable {
    /// The asset's identifier (`id`).
    public var id: String
    /// The asset's name (`nm`), if any.
    public var name: String?
    /// The precomposition's own frame rate (`fr`), if it overrides the animation's.
    public var frameRate: Double?
    /// The precomposition's layers.
    public var layers: [LottieLayer]

    /// Creates a precomposition.
    package init(id: String, name: String? = nil, frameRate: Double? = nil, layers: [LottieLayer]) {
        self.id = id
        self.name = name
        self.frameRate = frameRate
        self.layers = layers
    }
}
