import Foundation
import MediaAssets

/// `ImageUtil`'s decode stage: bitmaps decoded at display size, styled variants encoded as the renderer says.
///
/// The options say what a decode must cover: the part of the image a style keeps (its region of interest)
/// at the size it needs, or the whole image at full size. A decode toward 192 px answers a 96 px ask of the
/// same region, never the reverse, and a full-size decode answers every ask. Every format decodes only toward
/// that size (JPEG by DCT scaling, WebP by libwebp's scaling, PNG row by row, HEIC and AVIF from their
/// thumbnail when it is large enough). Use it to build an `AssetPipeline` of images of your own.
@usableFromInline package struct ImageAssetDecoder: AssetDecoding {
    /// What a decode covers: a region of the image at a size, or everything at full size.
    @usableFromInline package struct Options: Sendable, Hashable {
        /// The smallest size the region must reach (`nil`: full size).
        package var targetSize: PixelSize?
        /// The part of the upright image decoded (`nil`: all of it).
        package var regionOfInterest: ImageRegion?

        /// Creates options; the region is kept in its canonical form (`ImageRegion.normalized`), so styles that
        /// cut the same part share decodes.
        package init(targetSize: PixelSize?, regionOfInterest: ImageRegion? = nil) {
            self.targetSize = targetSize
            self.regionOfInterest = regionOfInterest?.normalized
        }

        /// The whole image at full size: what `.original` asks and stored variants are decoded with.
        @usableFromInline package static let fullSize = Options(targetSize: nil)

        /// What `style` needs: its region of interest at its target size.
        package init(for style: some ImageProcessing) {
            self.init(targetSize: style.targetSize, regionOfInterest: style.regionOfInterest)
        }
    }

    /// The decode, style and encode steps, from `ImageUtil.Configuration`.
    package let renderer: VariantRenderer

    /// Creates the decoder of a util configured by `configuration`.
    package init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) {
        self.renderer = VariantRenderer(configuration: configuration)
    }

    /// `image(<decoders>)`, with `,raw-orientation` when EXIF orientation is not applied: utils with other
    /// decoders or orientation handling never share decoded images.
    @usableFromInline package var identifier: String {
        let orientation = renderer.decodingOptions.appliesOrientation ? "" : ",raw-orientation"
        return "image(\(renderer.codecs.identifier)\(orientation))"
    }

    /// Decodes the part of `data` the options name, toward their size.
    @usableFromInline package func decode(_ data: Data, options: Options) throws -> Image {
        try renderer.decode(data, targetSize: options.targetSize, regionOfInterest: options.regionOfInterest)
    }

    /// The bitmap's bytes.
    @usableFromInline package func cost(of image: Image) -> Int { image.cost }

    /// Whether a decode with `provided` answers an ask for `requested`: a full-size decode answers every ask;
    /// otherwise the regions must be the same and the provided size at least the requested one.
    @usableFromInline package func options(_ provided: Options, satisfy requested: Options) -> Bool {
        if provided == .fullSize { return true }
        guard provided.regionOfInterest?.normalized == requested.regionOfInterest?.normalized else { return false }
        guard let providedSize = provided.targetSize else { return true }
        guard let requestedSize = requested.targetSize else { return false }
        return providedSize.width >= requestedSize.width && providedSize.height >= requestedSize.height
    }

    /// Stored variants are decoded at full size: they are stored as they are shown.
    @usableFromInline package var variantOptions: Options { .fullSize }

    /// The renderer's `variantFormat` (by default PNG when the variant has transparency, JPEG otherwise).
    /// `ImageUtil` names the format in each variant's key and encodes through its styles instead.
    @usableFromInline package func encodeVariant(_ image: Image) throws -> EncodedVariant? {
        try renderer.encode(image)
    }

    /// `ImageUtilError.undecodable` with the codec's reason.
    @usableFromInline package func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        guard let reason = error as? ImageError else {
            return AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
        }
        return ImageUtilError.undecodable(url: url, key: key, reason: reason)
    }
}
