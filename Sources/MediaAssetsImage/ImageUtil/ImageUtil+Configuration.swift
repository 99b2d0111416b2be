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
        /// Which decoded originals stay in memory beside the styled variants. Default:
        /// `.whenAskedUnprocessed`: an `.original` ask keeps the image it shows, while the decode a style was
        /// rendered from is dropped once its variant is made.
        ///
        /// A styled variant's decode covers only its style's region at twice its size or more (a JPEG's DCT
        /// scale steps): kept, it costs 4–16 times the variant's bitmap, and it answers only asks of the same
        /// region at no larger a size. Choose `.always` when one image is shown at once in several styles of
        /// the same shape; <doc:DecodingThumbnails> measures both.
        public var decodedOriginals: DecodedOriginalPolicy

        /// The largest encoded variant, in bytes, that `encodedImage(for:style:format:storageType:)` also keeps
        /// in the memory tier of `.hybrid(t)`, so that a service's next ask for it reads no file. Default
        /// 64 KiB; 0 keeps none. The bytes are charged to the image partition beside the variant's bitmap.
        public var encodedVariantsInMemory: Int

        /// How many image asks that memory did not answer run at once (joining or starting downloads, decodes
        /// and renders); the others wait by live priority, holding only their callers' frames, so a burst's
        /// memory does not grow with the asks' call chains. Default 256.
        public var activeAsks: Int

        /// Creates a configuration: 100-megapixel limit, PNG for transparent variants and JPEG at quality 85
        /// otherwise, PNG level 1, everything in `.hybrid(.image)`, decoded originals kept only when shown,
        /// encoded variants up to 64 KiB kept in memory when asked for as bytes, 256 asks past memory at once.
        public init(
            decodingOptions: ImageDecodingOptions = ImageDecodingOptions(),
            variantFormat: ImageEncoder = .automatic(jpegQuality: 85),
            pngCompressionLevel: Int = 1,
            storageType: StorageType = .hybrid(.image),
            codecs: ImageCodecRegistry = .standard,
            decodedOriginals: DecodedOriginalPolicy = .whenAskedUnprocessed,
            encodedVariantsInMemory: Int = 64 << 10,
            activeAsks: Int = 256
        ) {
            self.decodingOptions = decodingOptions
            self.variantFormat = variantFormat
            self.pngCompressionLevel = pngCompressionLevel
            self.storageType = storageType
            self.codecs = codecs
            self.decodedOriginals = decodedOriginals
            self.encodedVariantsInMemory = encodedVariantsInMemory
            self.activeAsks = activeAsks
        }
    }
}
