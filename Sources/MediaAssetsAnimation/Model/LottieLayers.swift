/// One layer of an animation or of a precomposition: what a player needs to place and order it.
///
/// The drawing content (transforms, shapes, keyframes) is skipped by the parser and stays in
/// `LottieDocument.data` for a renderer.
package struct LottieLayer: Sendable, Hashable {
    /// The kind of layer (`ty`).
    package var type: LottieLayerType
    /// The layer's name (`nm`), if any.
    package var name: String?
    /// The layer's index (`ind`) that `parent` values refer to, if any.
    package var index: Int?
    /// The `ind` of this layer's parent in the same layer list (`parent`), if any.
    package var parent: Int?
    /// The frame where the layer starts (`ip`), if given.
    package var inPoint: Double?
    /// The frame where the layer ends (`op`), if given.
    package var outPoint: Double?
    /// The asset a precomposition or image layer renders (`refId`), if any.
    package var referenceID: String?

    /// Creates a layer.
    package init(
        type: LottieLayerType, name: String? = nil, index: Int? = nil, parent: Int? = nil,
        inPoint: Double? = nil, outPoint: Double? = nil, referenceID: String? = nil
    ) {
        self.type = type
        self.name = name
        self.index = index
        self.parent = parent
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.referenceID = referenceID
    }
}

/// One entry of an animation's `assets` list.
package enum LottieAsset: Sendable, Hashable {
    /// An image, external or embedded.
    case image(LottieImageAsset)
    /// A precomposition (an asset with `layers`).
    case precomposition(LottiePrecomposition)

    /// The asset's identifier (`id`).
    package var id: String {
        switch self {
        case let .image(image): return image.id
        case let .precomposition(precomposition): return precomposition.id
        }
    }
}

/// A named time range in an animation (`markers[]`), used to play segments by name.
public struct LottieMarker: Sendable, Hashable {
    /// The marker's comment, usually its name (`cm`).
    public var comment: String?
    /// The frame where the marker starts (`tm`, 0 when absent).
    public var time: Double
    /// The marker's length in frames (`dr`, 0 when absent).
    public var duration: Double

    /// Creates a marker.
    package init(comment: String?, time: Double, duration: Double) {
        self.comment = comment
        self.time = time
        self.duration = duration
    }
}

/// A precomposition asset: a reusable list of layers that precomposition layers render by `refId`.
package struct LottiePrecomposition: Sendable, Hashable {
    /// The asset's identifier (`id`).
    package var id: String
    /// The asset's name (`nm`), if any.
    package var name: String?
    /// The precomposition's own frame rate (`fr`), if it overrides the animation's.
    package var frameRate: Double?
    /// The precomposition's layers.
    package var layers: [LottieLayer]

    /// Creates a precomposition.
    package init(id: String, name: String? = nil, frameRate: Double? = nil, layers: [LottieLayer]) {
        self.id = id
        self.name = name
        self.frameRate = frameRate
        self.layers = layers
    }
}
