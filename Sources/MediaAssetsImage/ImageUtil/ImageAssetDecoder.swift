import Foundation
import MediaAssets

/// `ImageUtil`'s decode stage: bitmaps decoded toward a target size, styled variants encoded as
/// PNG or JPEG.
///
/// The options are the size a decode must cover (`nil` for the full image): a decode toward 192 px
/// answers a 96 px ask, never the reverse, and JPEG's DCT scaling makes smaller decodes cheaper.
/// Use it to build an `AssetPipeline` of images of your own.
public struct ImageAssetDecoder: AssetDecoding {
    /// The decode, style and encode steps, from `ImageUtil.Configuration`.
    public let renderer: VariantRenderer

    /// Creates the decoder of a util configured by `configuration`.
    public init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) {
        self.renderer = VariantRenderer(configuration: configuration)
    }

    /// `image(<decoders>)`, with `,raw-orientation` when EXIF orientation is not applied: utils with other
    /// decoders or orientation handling never share decoded images.
    public var identifier: String {
        let orientation = renderer.decodingOptions.appliesOrientation ? "" : ",raw-orientation"
        return "image(\(renderer.codecs.identifier)\(orientation))"
    }

    /// Decodes `data` toward `targetSize` (`nil`: full size).
    public func decode(_ data: Data, options targetSize: PixelSize?) throws -> Image {
        try renderer.decode(data, targetSize: targetSize)
    }

    /// The bitmap's bytes.
    public func cost(of image: Image) -> Int { image.cost }

    /// Whether a decode toward `provided` is at least as large as one toward `requested`.
    public func options(_ provided: PixelSize?, satisfy requested: PixelSize?) -> Bool {
        guard let provided else { return true }
        guard let requested else { return false }
        return provided.width >= requested.width && provided.height >= requested.height
    }

    /// Stored variants are decoded at full size: they are stored as they are shown.
    public var variantOptions: PixelSize? { nil }

    /// PNG when the variant has transparency, JPEG otherwise (per `ImageUtil.VariantFormat`).
    public func encodeVariant(_ image: Image) throws -> EncodedVariant? {
        let encoded = try renderer.encode(image)
        return EncodedVariant(data: encoded.data, contentType: encoded.format.mimeType)
    }

    /// `ImageUtilError.undecodable` with the codec's reason.
    public func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        guard let reason = error as? ImageError else {
            return AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
        }
        return ImageUtilError.undecodable(url: url, key: key, reason: reason)
    }
}
