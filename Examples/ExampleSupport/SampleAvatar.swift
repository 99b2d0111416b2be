/// A user's portrait as the origin serves it.
public struct SampleAvatar: Sendable {
    /// The user, from 1.
    public let userNumber: Int
    /// The side of the square portrait in pixels (512 to 1024).
    public let side: Int
    /// The encoded portrait: JPEG; PNG with a transparent background for every fifth user; WebP for users 3
    /// and 17; an animated GIF for user 7.
    public let file: SampleFile

    /// Whether the portrait is a PNG with transparency.
    public var isPNG: Bool { file.contentType == "image/png" }
}
