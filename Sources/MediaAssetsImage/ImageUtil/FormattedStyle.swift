import Foundation
import MediaAssets

/// A style and the format its variant is encoded in: the process stage `ImageUtil` hands its pipeline.
///
/// Keyed `<style>@<format>` (`ImageEncoder.identifier`), so utils storing different formats on one
/// manager never overwrite each other's variants, and encoded through `format` when the variant is stored.
@usableFromInline
struct FormattedStyle<Style: ImageProcessing>: ImageProcessing {
    let style: Style
    let format: ImageEncoder
    let formatIdentifier: String
    let pngCompressionLevel: Int

    init(_ style: Style, format: ImageEncoder, formatIdentifier: String, pngCompressionLevel: Int) {
        self.style = style
        self.format = format
        self.formatIdentifier = formatIdentifier
        self.pngCompressionLevel = pngCompressionLevel
    }

    /// `<style>@<format>`, joined when asked (for messages): keys are made by `variantKey(of:)`.
    @usableFromInline var identifier: String { style.identifier + "@" + formatIdentifier }

    /// `<key>@<style>@<format>`, the style's and the format's identifiers kept apart, so a memory hit joins no text.
    @usableFromInline func variantKey(of originalKey: CacheKey) -> CacheKey {
        originalKey.variant(style.identifier).variant(formatIdentifier)
    }

    @usableFromInline var targetSize: PixelSize? { style.targetSize }
    @usableFromInline var regionOfInterest: ImageRegion? { style.regionOfInterest }

    @usableFromInline func process(_ image: Image) throws -> Image {
        try style.process(image)
    }

    @usableFromInline func encodeVariant(_ image: Image) throws -> EncodedVariant? {
        let encoder = format.encoder(for: image, pngCompressionLevel: pngCompressionLevel)
        return EncodedVariant(data: try encoder.encode(image), contentType: encoder.format.mimeType)
    }
}

extension ImageUtil {
    /// `style` in `format`, by default the configured one (whose identifier the util made once).
    @usableFromInline
    func formatted<Style: ImageProcessing>(_ style: Style, as format: ImageEncoder? = nil) -> FormattedStyle<Style> {
        let format = format ?? configuration.variantFormat
        let identifier = format == configuration.variantFormat ? variantFormatIdentifier : format.identifier
        return FormattedStyle(
            style, format: format, formatIdentifier: identifier, pngCompressionLevel: configuration.pngCompressionLevel)
    }
}
