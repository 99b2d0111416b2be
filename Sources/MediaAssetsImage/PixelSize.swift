/// A size in whole pixels: what a style asks of the decoder and what a resize produces.
///
/// Its `description` (`"96x96"`) is the form used inside processor identifiers.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size; values are not validated here (processors validate and throw).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// A square of `side` × `side` pixels.
    public static func square(_ side: Int) -> PixelSize {
        PixelSize(width: side, height: side)
    }

    /// `"<width>x<height>"`, for example `"96x96"`.
    public var description: String { "\(width)x\(height)" }
}
