import Foundation

/// A processor failed on the decoded asset: the processor's own error, kept as it was thrown, with the asset it
/// failed on.
///
/// Every util throws this for a failing processor or style, whether it failed while rendering or was found
/// invalid before anything was fetched, so a caller switches on `underlying` (an image style's
/// `ImageProcessingError`, a plugin's own error) in one place. Nothing was stored for the variant.
public struct AssetProcessingError: Error, CustomStringConvertible, LocalizedError {
    /// The key the variant would have been kept under (`<key>@<identifier>`).
    public let key: CacheKey
    /// The asset's URL.
    public let url: URL
    /// The processor's identifier (an image style's, for example `circle(96)`).
    public let processor: String
    /// What the processor threw.
    public let underlying: any Error

    /// Creates the error for `processor` failing on the asset at `url` with `underlying`.
    package init(key: CacheKey, url: URL, processor: String, underlying: any Error) {
        self.key = key
        self.url = url
        self.processor = processor
        self.underlying = underlying
    }

    /// A sentence a person can act on.
    public var description: String {
        "\(processor) failed on the asset at \(url.absoluteString) (variant \(key.rawValue.prefix(200))): "
            + "\(underlying); nothing was stored for the variant"
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
