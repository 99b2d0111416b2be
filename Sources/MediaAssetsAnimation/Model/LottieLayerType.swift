/// A layer's kind, from its `ty` key; values this version does not know are preserved in `unknown`.
package enum LottieLayerType: Sendable, Hashable {
    /// `0`: renders a precomposition asset named by `refId`.
    case precomposition
    /// `1`: a solid color rectangle.
    case solid
    /// `2`: renders an image asset named by `refId`.
    case image
    /// `3`: an invisible layer used as a parent.
    case null
    /// `4`: vector shapes.
    case shape
    /// `5`: text.
    case text
    /// `6`: audio.
    case audio
    /// `7`: a video placeholder.
    case videoPlaceholder
    /// `8`: an image sequence.
    case imageSequence
    /// `9`: video.
    case video
    /// `10`: an image placeholder.
    case imagePlaceholder
    /// `11`: a guide (not rendered).
    case guide
    /// `12`: an adjustment layer.
    case adjustment
    /// `13`: a 3D camera.
    case camera
    /// `14`: a light.
    case light
    /// `15`: data.
    case data
    /// Any other `ty` value, kept as written.
    case unknown(Int)

    private static let known: [LottieLayerType] = [
        .precomposition, .solid, .image, .null, .shape, .text, .audio, .videoPlaceholder, .imageSequence,
        .video, .imagePlaceholder, .guide, .adjustment, .camera, .light, .data,
    ]

    /// Creates the type for a `ty` value.
    package init(rawValue: Int) {
        if rawValue >= 0, rawValue < Self.known.count {
            self = Self.known[rawValue]
        } else {
            self = .unknown(rawValue)
        }
    }

    /// The `ty` value.
    package var rawValue: Int {
        if case let .unknown(value) = self { return value }
        return Self.known.firstIndex(of: self) ?? -1
    }
}
