/// What an encoded image's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Hashable {
    /// The encoded format.
    public var format: ImageFormat
    /// Width of the stored pixels (before orientation is applied).
    public var width: Int
    /// Height of the stored pixels (before orientation is applied).
    public var height: Int
    /// The EXIF orientation (JPEG only; `.identity` for PNG or when absent).
    public var orientation: ImageOrientation
    /// Whether decoded pixels can be non-opaque (PNG alpha channel or tRNS; never for JPEG).
    public var hasAlpha: Bool

    /// Creates a header.
    public init(format: ImageFormat, width: Int, height: Int, orientation: ImageOrientation, hasAlpha: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
    }

    /// The size of the stored pixels.
    package var storedSize: PixelSize { PixelSize(width: width, height: height) }

    /// The size the image has upright, once its orientation is applied.
    package var orientedSize: PixelSize { orientation.swapsDimensions ? storedSize.transposed : storedSize }
}
