import Foundation

/// An encoded image format the codecs read and write.
///
/// The format of downloaded bytes comes from their magic bytes (`sniff(_:)`), never from a URL's extension or
/// a server's content type: both are often wrong.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF/EXIF), baseline or progressive.
    case jpeg
    /// PNG, any colour type and bit depth, interlaced or not.
    case png

    /// The MIME type to store beside encoded bytes.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        }
    }

    /// The name people use ("JPEG", "PNG").
    public var description: String { rawValue.uppercased() }

    /// The format whose magic bytes `data` starts with, or `nil` when it is neither (or empty).
    ///
    /// JPEG starts with `FF D8 FF`; PNG with its eight-byte signature `89 50 4E 47 0D 0A 1A 0A`.
    ///
    /// - Complexity: O(1)
    public static func sniff(_ data: Data) -> ImageFormat? {
        if data.starts(with: jpegMagic) { return .jpeg }
        if data.starts(with: pngMagic) { return .png }
        return nil
    }

    private static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
