import Foundation

/// An encoder of one format and its settings: what `ImageEncoder` runs for each of its cases.
///
/// `identifier` names the format and its settings ("png-1", "webp-q80"), so variants encoded differently are
/// stored under different keys.
package protocol ImageEncoding: Sendable {
    /// A stable name of the format and settings.
    var identifier: String { get }
    /// The format written.
    var format: ImageFormat { get }

    /// The encoded bytes of `image`.
    ///
    /// - Throws: `ImageError.encodingFailed`, or `.libraryMissing` for a format loaded at run time.
    func encode(_ image: Image) throws -> Data
}
