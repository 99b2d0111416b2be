import Foundation

/// The decoders an `ImageUtil` knows, chosen per input by its magic bytes.
///
/// A value owned by `ImageUtil.Configuration` (never a global): register a decoder of your own and it is
/// asked first; registering one with an existing `identifier` replaces it.
///
/// ```swift
/// var configuration = ImageUtil.Configuration()
/// configuration.codecs.register(MyBMPDecoder())
/// ```
public struct ImageCodecRegistry: Sendable {
    /// The decoders in the order they are asked.
    public private(set) var decoders: [any ImageDecoding]

    /// Creates a registry of `decoders`, asked in this order.
    public init(decoders: [any ImageDecoding]) {
        self.decoders = decoders
    }

    /// JPEG and PNG (linked), then WebP, GIF, HEIC and AVIF (their libraries loaded at first use).
    public static let standard = ImageCodecRegistry(
        decoders: [JPEGDecoder(), PNGDecoder(), WebPDecoder(), GIFDecoder(), HEIFDecoder()]
    )

    /// The decoders' identifiers in order ("jpeg+png+webp+gif+heif"): part of the key of what this registry
    /// decodes, so a util whose registry differs does not share decoded images with one whose registry does not.
    public var identifier: String { decoders.map(\.identifier).joined(separator: "+") }

    /// Adds `decoder` in front of the others, replacing any decoder with the same identifier.
    public mutating func register(_ decoder: any ImageDecoding) {
        decoders.removeAll { $0.identifier == decoder.identifier }
        decoders.insert(decoder, at: 0)
    }

    /// The decoder with this identifier, if registered.
    public func decoder(identifier: String) -> (any ImageDecoding)? {
        decoders.first { $0.identifier == identifier }
    }

    /// The first decoder that recognises `data`'s magic bytes.
    ///
    /// - Throws: `ImageError.unknownFormat` with the leading bytes when none does.
    public func decoder(for data: Data) throws -> any ImageDecoding {
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
