import Foundation
import MediaAssets

/// Why `ImageUtil` could not produce an image from the bytes it has. Network and storage failures arrive as
/// `AssetsError`, a style that cannot be drawn or fails as `AssetProcessingError` (with the style's own error).
public enum ImageUtilError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The string given to `downloadImage(url:…)` is not a URL.
    case invalidURL(String)
    /// The original's bytes are not a decodable image (corrupt, truncated, too many pixels, unknown format).
    /// Nothing was kept in the cache for the original or its variant.
    case undecodable(url: URL, key: CacheKey, reason: ImageError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .invalidURL(let text):
            return "\"\(text)\" is not a valid URL"
        case let .undecodable(url, key, reason):
            return "The image at \(url.absoluteString) cannot be decoded (\(reason)); nothing was cached for \(key)"
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
