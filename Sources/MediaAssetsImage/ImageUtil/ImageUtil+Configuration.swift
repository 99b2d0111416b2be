import MediaAssets

extension ImageUtil {
    /// How an `ImageUtil` decodes, encodes and stores images.
    public struct Configuration: Sendable {
        /// Decoder limits and orientation handling. `targetSize` is ignored here: each style sets its own.
        public var decodingOptions: ImageDecodingOptions
        /// The encoding of stored styled variants.
        public var variantFormat: ImageEncoder
        /// The zlib level (0...9) of PNG variants. Small avatars compress nearly as well at a low level,
        /// several times faster than libpng's default of 6.
        public var pngCompressionLevel: Int
        /// Where the util keeps originals and styled variants unless a call names another storage type
        /// (every method's `storageType` argument), `avatar(_:)`, `setAvatar(_:deliver:)` and prefetchers
        /// included. Default `.hybrid(.image)`: decoded images in the image memory partition over the disk
        /// cache's bytes.
        public var storageType: StorageType
        /// The decoders, chosen per image by its magic bytes; register your own here.
        public var codecs: ImageCodecRegistry
        /// What the util's pipeline keeps in memory and how many asks it lets in: decoded originals only when
        /// shown (`.whenAskedUnprocessed`; <doc:DecodingThumbnails> measures `.always` against it), encoded
        /// variants up to 64 KiB in the memory tier of `.hybrid(t)` when asked for as bytes
        /// (`encodedImage(for:style:format:storageType:)`), and 256 asks past memory at once.
        public var pipeline: PipelineConfiguration

        /// Creates a configuration: 100-megapixel limit, PNG for transparent variants and JPEG at quality 85
        /// otherwise, PNG level 1, everything in `.hybrid(.image)`, decoded originals kept only when shown,
        /// encoded variants up to 64 KiB kept in memory when asked for as bytes, 256 asks past memory at once.
        public init(
            decodingOptions: ImageDecodingOptions = ImageDecodingOptions(),
            variantFormat: ImageEncoder = .automatic(jpegQuality: 85),
            pngCompressionLevel: Int = 1,
            storageType: StorageType = .hybrid(.image),
            codecs: ImageCodecRegistry = .standard,
            pipeline: PipelineConfiguration = PipelineConfiguration()
        ) {
            self.decodingOptions = decodingOptions
            self.variantFormat = variantFormat
            self.pngCompressionLevel = pngCompressionLevel
            self.storageType = storageType
            self.codecs = codecs
            self.pipeline = pipeline
        }
    }
}
