import Foundation
import MediaAssets

/// The CPU half of `ImageUtil`: decodes bytes toward a style's size, renders the style, encodes the variant.
///
/// Pure functions of their input, safe to call from any task. `ImageUtil` runs every decode, render and
/// encode through one of these; benchmarks and tools can run the same pipeline without a manager:
///
/// ```swift
/// let renderer = VariantRenderer()
/// let styled = try renderer.render(try renderer.decode(jpegBytes, for: .circle(diameter: 96)),
///                                  style: .circle(diameter: 96))
/// let stored = try renderer.encode(styled)   // PNG, since the corners are transparent
/// ```
package struct VariantRenderer: Sendable {
    /// Decoder limits and orientation handling; `targetSize` is replaced per call.
    package var decodingOptions: ImageDecodingOptions
    /// The format variants are encoded in (`ImageEncoder`).
    package var variantFormat: ImageEncoder
    /// The zlib level (0...9) of PNG variants.
    package var pngCompressionLevel: Int
    /// The decoders, chosen by magic bytes.
    package var codecs: ImageCodecRegistry

    /// Creates a renderer with an `ImageUtil` configuration's codec settings.
    package init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) {
        self.decodingOptions = configuration.decodingOptions
        self.variantFormat = configuration.variantFormat
        self.pngCompressionLevel = configuration.pngCompressionLevel
        self.codecs = configuration.codecs
    }

    /// Decodes `data` for `style`: only the part the style keeps (`style.regionOfInterest`), at display size
    /// toward `style.targetSize` (with the options' headroom), unless `downsampling` is false (the whole image
    /// at full size).
    ///
    /// - Throws: `ImageError` for corrupt, truncated, oversized or unknown input.
    package func decode(_ data: Data, for style: AvatarStyle, downsampling: Bool = true) throws -> Image {
        guard downsampling else { return try decode(data, targetSize: nil) }
        var options = decodingOptions
        options.targetSize = style.targetSize
        options.regionOfInterest = style.regionOfInterest
        return try codecs.decode(data, options: options)
    }

    /// Decodes `regionOfInterest` of `data` (all of it when `nil`) at display size: toward `targetSize` when
    /// given (full size when `nil`).
    ///
    /// - Throws: `ImageError`
    package func decode(_ data: Data, targetSize: PixelSize?, regionOfInterest: ImageRegion? = nil) throws -> Image {
        var options = decodingOptions
        options.targetSize = targetSize
        options.regionOfInterest = regionOfInterest
        return try codecs.decode(data, options: options)
    }

    /// Returns `image` styled by `style` (`.original` returns it unchanged).
    ///
    /// - Throws: `ImageProcessingError`, or a freeform transform's error.
    package func render(_ image: Image, style: AvatarStyle) throws -> Image {
        try style.process(image)
    }

    /// Encodes a variant in `format` (by default `variantFormat`): PNG with alpha when any pixel is transparent,
    /// else JPEG; or always PNG, JPEG, WebP or AVIF. The bytes come with their MIME type, as a pipeline stores
    /// them.
    ///
    /// - Throws: `ImageError.encodingFailed`, or `.libraryMissing` / `.unsupported` for WebP and AVIF where the
    ///   system cannot encode them.
    package func encode(_ image: Image, as format: ImageEncoder? = nil) throws -> EncodedVariant {
        let encoder = (format ?? variantFormat).encoder(for: image, pngCompressionLevel: pngCompressionLevel)
        return EncodedVariant(data: try encoder.encode(image), contentType: encoder.format.mimeType)
    }
}
