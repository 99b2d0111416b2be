import Foundation

/// An encoded image format: the built-in ones are static members, and a user's decoder can name its own.
///
/// The format of downloaded bytes comes from their magic bytes (`sniff(_:)` and each decoder's
/// `ImageDecoding.canDecode(_:)`), never from a URL's extension or a server's content type: both are often wrong.
public struct ImageFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// A short lowercase name ("jpeg", "webp"), also the decoder identifier of the built-in formats.
    public let rawValue: String

    /// Creates a format from its short name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// JPEG (JFIF/EXIF), baseline or progressive.
    public static let jpeg = ImageFormat(rawValue: "jpeg")
    /// PNG, any colour type and bit depth, interlaced or not.
    public static let png = ImageFormat(rawValue: "png")
    /// WebP: lossy, lossless, with alpha, animated (decoded through libwebp loaded at run time).
    public static let webp = ImageFormat(rawValue: "webp")
    /// GIF 87a/89a, animated or not (decoded through giflib loaded at run time).
    public static let gif = ImageFormat(rawValue: "gif")
    /// HEIC: HEVC in HEIF, as iPhones take photos (decoded through libheif loaded at run time).
    public static let heic = ImageFormat(rawValue: "heic")
    /// AVIF: AV1 in HEIF (decoded through libheif loaded at run time).
    public static let avif = ImageFormat(rawValue: "avif")

    /// The built-in formats.
    package static let builtIn: [ImageFormat] = [.jpeg, .png, .webp, .gif, .heic, .avif]

    /// The MIME type to store beside encoded bytes (`image/<name>` for a user's format).
    public var mimeType: String { "image/" + rawValue }

    /// The name people use ("JPEG", "WEBP").
    public var description: String { rawValue.uppercased() }

    /// The built-in format whose magic bytes `data` starts with, or `nil` when none matches (or it is empty).
    ///
    /// JPEG starts with `FF D8 FF`; PNG with `89 50 4E 47 0D 0A 1A 0A`; WebP with `RIFF....WEBP`; GIF with
    /// `GIF87a` or `GIF89a`; HEIC and AVIF with an ISO-BMFF `ftyp` box whose brands name them.
    ///
    /// - Complexity: O(1) (at most the first 64 bytes are read)
    public static func sniff(_ data: Data) -> ImageFormat? {
        if data.starts(with: jpegMagic) { return .jpeg }
        if data.starts(with: pngMagic) { return .png }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)),
            data.dropFirst(8).starts(with: Array("WEBP".utf8))
        {
            return .webp
        }
        if data.starts(with: Array("GIF87a".utf8)) || data.starts(with: Array("GIF89a".utf8)) { return .gif }
        return HEIFBrands.format(of: data)
    }

    private static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
