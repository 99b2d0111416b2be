import Foundation

/// An avatar to show: where it lives, its style, and the app's own storage.
///
/// The app keeps styled avatars wherever it likes (files, Core Data, SQLite); `ImageUtil` asks for them
/// through this protocol and hands back what it downloads and renders through `save(originalImage:styledImage:)`.
/// An intermediate value (a user plus a style) conforming to it changes the least code:
///
/// ```swift
/// struct UserAvatar: Avatar {
///     let user: User
///     let style = AvatarStyle.circle(diameter: 96)
///     var url: URL { user.avatarURL }
///     var placeholderImage: Image? { Placeholders.person }
///     var localOriginalImage: Image? { store.original(for: user.id) }
///     var localStyledImage: Image? { store.styled(for: user.id, style: style) }
///     func save(originalImage: Image, styledImage: Image) { store.save(originalImage, styledImage, for: user.id) }
/// }
/// ```
public protocol Avatar: Sendable {
    /// Where the original image is downloaded from.
    var url: URL { get }
    /// A server-given version of the image (a content hash); part of the cache key. Defaults to `nil`.
    var version: String? { get }
    /// The style to show it in; its identifier keys the cached variant.
    var style: AvatarStyle { get }
    /// Shown until the avatar is ready (and kept if it cannot be loaded).
    var placeholderImage: Image? { get }
    /// The original the app stored, styled on the spot when there is no styled image.
    var localOriginalImage: Image? { get }
    /// The styled image the app stored for `style`; used as is.
    var localStyledImage: Image? { get }

    /// Called once the util has rendered `styledImage` from the original, so the app can store both.
    ///
    /// `originalImage` is the decoded original, which the decoder may have reduced toward the style's size and
    /// cut to the part the style keeps (its region of interest: the centred square for a circle).
    /// Called from a background task; do not block.
    func save(originalImage: Image, styledImage: Image)
}

extension Avatar {
    /// No version: the URL alone identifies the image.
    public var version: String? { nil }
}
