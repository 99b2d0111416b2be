import Foundation

/// The one way to decode image bytes: the decoders an `ImageUtil` knows, chosen per input by its magic bytes,
/// decoding into premultiplied RGBA `Image`s.
///
/// ```swift
/// let image = try ImageCodecRegistry.standard.decode(bytes, options: .init(targetSize: .square(96)))
/// ```
///
/// The format comes from the magic bytes: JPEG and PNG through the linked libjpeg-turbo and libpng; WebP, GIF,
/// HEIC and AVIF through libwebp, giflib and libheif loaded at run time (a missing one throws
/// `ImageError.libraryMissing` naming the Debian package). Every failure is a thrown `ImageError`: corrupt,
/// truncated or hostile input never ends the process (libjpeg's and libpng's longjmp-based errors are caught in
/// the C shims). The header is read first and its size checked against `ImageDecodingOptions.maxPixelCount`
/// before any pixel memory is allocated.
///
/// Truncation policy: a file that ends early throws `ImageError.truncated` instead of returning a partial
/// image (libjpeg would fill the missing rows with grey), so a cut download is never cached as if it were
/// whole. A JPEG must reach its EOI marker and a PNG its IEND chunk. JPEG warnings other than a premature end
/// (stray bytes between markers, one bad Huffman code) are tolerated, as browsers do. Progressive JPEGs with
/// more than 1000 scans are refused as corrupt (a CPU bomb).
///
/// Still images decode at display size: toward `targetSize × downsamplingHeadroom` and only the
/// `regionOfInterest` (JPEG by DCT scaling and libjpeg-turbo's cropping, reading only the scans a progressive
/// file's scale shows; WebP by libwebp's scaling and cropping; PNG row by row into a box-reduced buffer; HEIC
/// and AVIF from an embedded thumbnail that covers the target, else reduced from libheif's decoded plane), so
/// peak memory follows the output, not the source. An interlaced PNG and a HEIC or AVIF without a large enough
/// thumbnail are decoded whole first. A decoder that cannot cut a region has it cut by the registry. PNG's
/// orientation is not read (no eXIf support).
///
/// A value owned by `ImageUtil.Configuration` (never a global): register a decoder of your own (an
/// `ImageDecoding`) and it is asked first; registering one with an existing `identifier` replaces it.
///
/// ```swift
/// var configuration = ImageUtil.Configuration()
/// configuration.codecs.register(MyBMPDecoder())
/// ```
public struct ImageCodecRegistry: Sendable {
    /// The decoders in the order they are asked.
    package private(set) var decoders: [any ImageDecoding]

    /// Creates a registry of `decoders`, asked in this order.
    package init(decoders: [any ImageDecoding]) {
        self.decoders = decoders
    }

    /// JPEG and PNG (linked), then WebP, GIF, HEIC and AVIF (their libraries loaded at first use).
    public static let standard = ImageCodecRegistry(
        decoders: [JPEGDecoder(), PNGDecoder(), WebPDecoder(), GIFDecoder(), HEIFDecoder()]
    )

    /// The decoders' identifiers in order ("jpeg+png+webp+gif+heif"): part of the key of what this registry
    /// decodes, so a util whose registry differs does not share decoded images with one whose registry does not.
    package var identifier: String { decoders.map(\.identifier).joined(separator: "+") }

    /// Adds `decoder` in front of the others, replacing any decoder with the same identifier.
    public mutating func register(_ decoder: any ImageDecoding) {
        decoders.removeAll { $0.identifier == decoder.identifier }
        decoders.insert(decoder, at: 0)
    }

    /// The decoder with this identifier, if registered.
    package func decoder(identifier: String) -> (any ImageDecoding)? {
        decoders.first { $0.identifier == identifier }
    }

    /// The first decoder that recognises `data`'s magic bytes.
    ///
    /// - Throws: `ImageError.unknownFormat` with the leading bytes when none does.
    package func decoder(for data: Data) throws -> any ImageDecoding {
        guard let decoder = decoders.first(where: { $0.canDecode(data) }) else {
            throw ImageError.unknownFormat(byteCount: data.count, leadingBytes: Array(data.prefix(8)))
        }
        return decoder
    }

    /// Decodes `data` (the first frame of an animation) with the decoder its magic bytes choose.
    ///
    /// - Throws: `ImageError`
    public func decode(_ data: Data, options: ImageDecodingOptions = .init()) throws -> Image {
        let decoder = try decoder(for: data)
        let image = try decoder.decode(data, options: options)
        guard let region = options.regionOfInterest, !decoder.decodesRegions else { return image }
        return image.cropped(to: region.rect(in: PixelSize(width: image.width, height: image.height)))
    }

    /// Decodes every frame of `data`; a still image is one frame.
    ///
    /// - Throws: `ImageError`
    public func decodeAnimation(_ data: Data, options: ImageDecodingOptions = .init()) throws -> AnimatedImage {
        try decoder(for: data).decodeAnimation(data, options: options)
    }

    /// Reads only the header of `data`.
    ///
    /// - Throws: `ImageError`
    public func header(of data: Data) throws -> ImageHeader {
        let header = try decoder(for: data).header(of: data)
        try ImageDecoder.checkDimensions(of: header)
        return header
    }
}

extension ImageCodecRegistry {
    /// What the headers of `data` say about its animation (format, canvas, frame count, loop count), without
    /// decoding any frame: GIF's blocks are walked to the trailer with no pixel decompressed, animated WebP's
    /// container is parsed by libwebpdemux. A still image, and a format without animation headers (JPEG, PNG,
    /// HEIF, a decoder you register), is one frame of its upright size.
    ///
    /// This is how to learn an animation's size before deciding to decode it; a truncated GIF or WebP
    /// container is refused here.
    ///
    /// - Throws: `ImageError`
    /// - Complexity: O(encoded bytes) for GIF (a copy of each block, no decompression); O(header) otherwise.
    public func animationInfo(of data: Data) throws -> AnimationInfo {
        let decoder = try decoder(for: data)
        if let animated = decoder as? any AnimationFrameSourceMaking {
            return try animated.animationInfo(of: data)
        }
        let header = try header(of: data)
        return AnimationInfo(format: header.format, canvas: header.orientedSize, frameCount: 1, loopCount: 0)
    }

    /// A source decoding the frames of `data` (whose headers said `info`) one at a time; a still image, or a
    /// format without a frame reader, is one frame decoded toward `options.targetSize`.
    func makeFrameSource(
        _ data: Data, info: AnimationInfo, options: ImageDecodingOptions
    ) throws -> any AnimationFrameSource {
        let decoder = try decoder(for: data)
        if let animated = decoder as? any AnimationFrameSourceMaking {
            return try animated.makeFrameSource(data, info: info, options: options)
        }
        return StillFrameSource(info: info) { try decoder.decode(data, options: options) }
    }
}
