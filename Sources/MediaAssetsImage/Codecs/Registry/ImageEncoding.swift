import Foundation

/// An encoder plugin: turns a premultiplied RGBA `Image` into bytes of one format.
///
/// `identifier` names the format and its settings ("png-1", "webp-q80"), so variants encoded differently are
/// stored under different keys.
public protocol ImageEncoding: Sendable {
    /// A stable name of the format and settings.
    var identifier: String { get }
    /// The format written.
    var format: ImageFormat { get }

    /// The encoded bytes of `image`.
    ///
    /// - Throws: `ImageError.encodingFailed`, or `.libraryMissing` for a format loaded at run time.
    func encode(_ image: Image) throws -> Data
}
