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

/// How stored pixels must be turned to display upright: the EXIF orientation tag, values 1–8.
///
/// Cameras write the sensor's rows as they come and record the turn in EXIF instead of rotating the pixels.
/// The case names say what is done to the stored image to show it upright.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: already upright.
    case identity = 1
    /// 2: mirror left–right.
    case flipHorizontal = 2
    /// 3: turn half a turn.
    case rotate180 = 3
    /// 4: mirror top–bottom.
    case flipVertical = 4
    /// 5: mirror across the top-left to bottom-right diagonal.
    case transpose = 5
    /// 6: turn a quarter clockwise (the usual portrait photo from a phone).
    case rotate90Clockwise = 6
    /// 7: mirror across the top-right to bottom-left diagonal.
    case transverse = 7
    /// 8: turn a quarter counter-clockwise.
    case rotate90CounterClockwise = 8

    /// Whether the upright image has width and height exchanged (orientations 5–8).
    package var swapsDimensions: Bool { rawValue >= 5 }
}
