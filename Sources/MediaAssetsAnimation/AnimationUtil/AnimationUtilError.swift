import Foundation
import MediaAssets

/// Why `AnimationUtil` could not produce an animation from the bytes it has: the parser's own error, with the
/// asset it failed on. Network and storage failures arrive as `AssetsError`, as from every util.
public enum AnimationUtilError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The bytes at `url` are not a Lottie animation within the parsing limits; nothing was cached for `key`
    /// (bytes found in storage are removed).
    case undecodable(url: URL, key: CacheKey, reason: LottieError)
    /// The bytes at `url` are not a dotLottie archive within the reading limits; nothing was cached for `key`.
    case undecodableArchive(url: URL, key: CacheKey, reason: DotLottieError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .undecodable(url, key, reason):
            return "The animation at \(url.absoluteString) does not parse (\(reason)); nothing was cached for "
                + "\(key.rawValue.prefix(200))."
        case let .undecodableArchive(url, key, reason):
            return "The dotLottie archive at \(url.absoluteString) does not read (\(reason)); nothing was cached "
                + "for \(key.rawValue.prefix(200))."
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
