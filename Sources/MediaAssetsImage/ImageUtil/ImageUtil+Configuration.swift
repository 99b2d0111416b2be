import MediaAssets

extension ImageUtil {
    /// How an `ImageUtil` decodes, encodes and stores images.
    public struct Configuration: Sendable {
        /// Decoder limits and orientation handling. `targetSize` is ignored here: each style sets its own.
        public var decodingOptions: ImageDecodingOptions
        /// The encoding of stored styled variants.
        public var variantFormat: VariantFormat
        /// The zlib level (0...9) of PNG variants. Small avatars compress nearly as well at a low level,
        /// several times faster than libpng's default of 6.
        public var pngCompressionLevel: Int
        /// Where `avatar(_:)` and `setAvatar(_:deliver:)` keep originals and styled variants.
        public var avatarStorageType: StorageType
        /// The decoders, chosen per image by its magic bytes; register your own here.
        public var codecs: ImageCodecRegistry

        /// Creates a configuration: 100-megapixel limit, PNG for transparent variants and JPEG at quality 85
        /// otherwise, PNG level 1, avatars in `.hybrid(.image)`.
        public init(
            decodingOptions: ImageDecodingOptions = ImageDecodingOptions(),
            variantFormat: VariantFormat = .automatic(jpegQuality: 85),
            pngCompressionLevel: Int = 1,
            avatarStorageType: StorageType = .hybrid(.image),
            codecs: ImageCodecRegistry = .standard
        ) {
            self.decodingOptions = decodingOptions
            self.variantFormat = variantFormat
            self.pngCompressionLevel = pngCompressionLevel
            self.avatarStorageType = avatarStorageType
            self.codecs = codecs
        }
    }

    /// How a styled variant is encoded before it is stored.
    public enum VariantFormat: Sendable, Hashable {
        /// PNG when any pixel is transparent (a circle's corners), JPEG at `jpegQuality` (1...100) otherwise.
        case automatic(jpegQuality: Int)
        /// Always PNG: lossless, larger for photographic rectangles.
        case png
        /// Always WebP (libwebp loaded at run time): lossy at `quality` (0...100) with lossless alpha, or
        /// lossless when `quality` is `nil`. Several times smaller than PNG for photographic avatars.
        case webp(quality: Int?)
    }
}
