import Foundation
import MediaAssets
import MediaAssetsImage

/// Why an image asset of an animation could not be made ready to draw.
///
/// Every case names the asset (`id` in the animation's `assets`) and where its bytes were looked for,
/// so a person can fix the file or the server.
public enum AnimationAssetError: Hashable, MediaAssetsError {
    /// The server answered the image's URL with `status` (404 when the file is missing).
    case missing(assetID: String, url: URL, status: Int)
    /// The image could not be fetched (network or storage failure); `reason` says why.
    case fetchFailed(assetID: String, url: URL, reason: String)
    /// The image's bytes are not an image the format plugins decode.
    case undecodable(assetID: String, url: URL?, reason: ImageError)
    /// An embedded image's data URL is broken (no comma, bad base64).
    case invalidDataURL(assetID: String)
    /// The asset's `u` + `p` does not make a URL.
    case invalidReference(assetID: String, reference: String)

    /// The asset the error is about.
    public var assetID: String {
        switch self {
        case let .missing(id, _, _), let .fetchFailed(id, _, _), let .undecodable(id, _, _),
            let .invalidDataURL(id), let .invalidReference(id, _):
            return id
        }
    }

    /// The URL the asset was fetched from, if it is external.
    public var url: URL? {
        switch self {
        case let .missing(_, url, _), let .fetchFailed(_, url, _): return url
        case let .undecodable(_, url, _): return url
        case .invalidDataURL, .invalidReference: return nil
        }
    }

    /// A sentence naming the asset, its URL and what is wrong.
    public var description: String {
        switch self {
        case let .missing(id, url, status):
            return "Image asset \(id.debugDescription) is missing: \(url.absoluteString) answered HTTP \(status)"
        case let .fetchFailed(id, url, reason):
            return "Image asset \(id.debugDescription) could not be fetched from \(url.absoluteString): \(reason)"
        case let .undecodable(id, url, reason):
            let place = url.map { " at \($0.absoluteString)" } ?? " (embedded)"
            return "Image asset \(id.debugDescription)\(place) cannot be decoded: \(reason)"
        case let .invalidDataURL(id):
            return "Image asset \(id.debugDescription) embeds a broken data URL (expected data:<type>;base64,<data>)"
        case let .invalidReference(id, reference):
            return "Image asset \(id.debugDescription) names \(reference.debugDescription), which is not a URL"
        }
    }
}
