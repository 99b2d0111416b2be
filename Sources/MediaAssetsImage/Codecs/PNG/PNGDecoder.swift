import Foundation

/// Decodes PNG through the linked libpng, at full size, into premultiplied RGBA.
public struct PNGDecoder: ImageDecoding, Hashable {
    /// "png".
    public var identifier: String { ImageFormat.png.rawValue }

    /// Creates the decoder.
    public init() {}

    /// Whether `data` starts with PNG's eight-byte signature.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .png }

    /// The IHDR size and whether the image has alpha (an alpha channel or tRNS).
    public func header(of data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { try ImageDecoder.pngHeader($0) }
    }

    /// Decodes at full size (APNG's extra frames are ignored: libpng reads the default image).
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { try ImageDecoder.decodePNG($0, options: options) }
    }
}
