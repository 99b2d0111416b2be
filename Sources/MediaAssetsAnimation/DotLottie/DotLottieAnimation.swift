/// One animation of a dotLottie archive: the manifest's id and the parsed animation.
public struct DotLottieAnimation: Sendable, Hashable {
    /// The id the manifest lists (the JSON file's name without `.json`).
    public var id: String
    /// The parsed, validated animation.
    public var animation: LottieDocument

    /// Creates an archive animation.
    public init(id: String, animation: LottieDocument) {
        self.id = id
        self.animation = animation
    }
}
