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
            variantFormat: VariantFormat = .automatic(jpegQuality: 85),
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

    /// How a styled variant is encoded: what is stored, and what `encodedImage(for:style:format:)` returns.
    ///
    /// The format and its quality are part of the variant's key (`<key>@<style>@<identifier>`), so utils that
    /// store different formats on one manager never overwrite each other's variants.
    public enum VariantFormat: Sendable, Hashable {
        /// PNG when any pixel is transparent (a circle's corners), JPEG at `jpegQuality` (1...100) otherwise.
        case automatic(jpegQuality: Int)
        /// Always PNG: lossless, larger for photographic rectangles.
        case png
        /// Always JPEG at `quality` (1...100); transparent pixels are composited over black.
        case jpeg(quality: Int)
        /// Always WebP (libwebp loaded at run time): lossy at `quality` (0...100) with lossless alpha, or
        /// lossless when `quality` is `nil`. Several times smaller than PNG for photographic avatars.
        case webp(quality: Int?)
        /// Always AVIF (libheif loaded at run time, where its build has an AV1 encoder: `AVIFEncoder.isAvailable`)
        /// at `quality` (0...100), or lossless when `nil`. Smaller than WebP, and far slower to encode.
        case avif(quality: Int?)

        /// The variant key's part naming the format and its quality (clamped as the encoder clamps it):
        /// `auto-q85`, `png`, `jpeg-q85`, `webp-q80`, `webp-lossless`, `avif-q60`, `avif-lossless`.
        public var identifier: String {
            switch self {
            case .automatic(let quality): return "auto-q\(Self.jpegQuality(quality))"
            case .png: return "png"
            case .jpeg(let quality): return JPEGEncoder(quality: Self.jpegQuality(quality)).identifier
            case .webp(let quality):
                return WebPEncoder(compression: quality.map { .lossy(quality: min(100, max(0, $0))) } ?? .lossless)
                    .identifier
            case .avif(let quality): return AVIFEncoder(quality: quality).identifier
            }
        }

        /// The encoder of `image` in this format (for `.automatic`, PNG or JPEG by the image's transparency);
        /// PNG at `pngCompressionLevel`.
        public func encoder(for image: Image, pngCompressionLevel: Int? = nil) -> any ImageEncoding {
            switch self {
            case .automatic(let quality) where !image.hasTransparency: return JPEGEncoder(quality: quality)
            case .automatic, .png: return PNGEncoder(compressionLevel: pngCompressionLevel)
            case .jpeg(let quality): return JPEGEncoder(quality: quality)
            case .webp(let quality): return WebPEncoder(compression: quality.map { .lossy(quality: $0) } ?? .lossless)
            case .avif(let quality): return AVIFEncoder(quality: quality)
            }
        }

        private static func jpegQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }
    }
}
