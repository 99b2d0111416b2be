/// One layer of an animation or of a precomposition: what a player needs to place and order it.
///
/// The drawing content (transforms, shapes, keyframes) is skipped by the parser and stays in
/// `LottieDocument.data` for a renderer.
public struct LottieLayer: Sendable, Hashable {
    /// The kind of layer (`ty`).
    public var type: LottieLayerType
    /// The layer's name (`nm`), if any.
    public var name: String?
    /// The layer's index (`ind`) that `parent` values refer to, if any.
    public var index: Int?
    /// The `ind` of this layer's parent in the same layer list (`parent`), if any.
    public var parent: Int?
    /// The frame where the layer starts (`ip`), if given.
    public var inPoint: Double?
    /// The frame where the layer ends (`op`), if given.
    public var outPoint: Double?
    /// The asset a precomposition or image layer renders (`refId`), if any.
    public var referenceID: String?

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
