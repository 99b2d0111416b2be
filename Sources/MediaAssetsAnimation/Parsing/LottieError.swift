import Foundation
import MediaAssets

/// Why a Lottie animation could not be parsed or failed validation.
///
/// Syntax problems carry the byte offset where reading stopped; problems with the content carry
/// the JSON path of the offending value (for example `$.layers[3].parent`).
public enum LottieError: Equatable, MediaAssetsError {
    /// The input is larger than `LottieParsingOptions.maximumInputSize`; nothing was read.
    case inputTooLarge(size: Int, limit: Int)
    /// The bytes are not valid JSON; `offset` is the byte where the problem was found.
    case malformedJSON(offset: Int, reason: String)
    /// Arrays and objects are nested deeper than `limit`; `offset` is the opening bracket that crossed it.
    case nestingTooDeep(offset: Int, limit: Int)
    /// The list at `path` holds more elements than `limit` allows.
    case tooManyElements(path: String, limit: Int)
    /// The JSON is well formed but the value at `path` is missing, has the wrong type or is inconsistent.
    case invalid(path: String, reason: String)

    /// A sentence naming the offset or path and what is wrong.
    public var description: String {
        switch self {
        case let .inputTooLarge(size, limit):
            return "Lottie input of \(size) bytes exceeds the limit of \(limit) bytes"
        case let .malformedJSON(offset, reason):
            return "Malformed Lottie JSON at byte \(offset): \(reason)"
        case let .nestingTooDeep(offset, limit):
            return "Lottie JSON nests deeper than \(limit) levels at byte \(offset)"
        case let .tooManyElements(path, limit):
            return "Lottie list \(path) holds more than \(limit) elements"
        case let .invalid(path, reason):
            return "Invalid Lottie animation at \(path): \(reason)"
        }
    }
}

/// Why `AnimationUtil` could not produce an animation from the bytes it has: the parser's own error, with the
/// asset it failed on. Network and storage failures arrive as `AssetsError`, as from every util.
public enum AnimationUtilError: Equatable, MediaAssetsError {
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
}
