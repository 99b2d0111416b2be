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
