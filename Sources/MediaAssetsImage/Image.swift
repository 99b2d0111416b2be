/// A decoded bitmap: 8-bit RGBA with premultiplied alpha, rows top to bottom, no row padding.
///
/// Pixels are stored premultiplied (each colour channel already multiplied by alpha / 255), so
/// filters that average neighbouring pixels do not darken transparent edges. Decoders produce
/// premultiplied pixels; encoders un-premultiply before writing.
public struct Image: Sendable, Hashable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel, premultiplied.
    public var pixels: [UInt8]

    /// Creates an image from premultiplied RGBA8 pixels.
    ///
    /// - Precondition: `width > 0`, `height > 0`, `pixels.count == width * height * 4`.
    ///   Decoders validate untrusted sizes before calling this.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "Image dimensions must be positive")
        precondition(pixels.count == width * height * 4, "Pixel buffer does not match the dimensions")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Creates an image of the given size filled with one premultiplied colour.
    public init(width: Int, height: Int, fill: RGBA = .transparent) {
        precondition(width > 0 && height > 0, "Image dimensions must be positive")
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        if fill != .transparent {
            let premultiplied = fill.premultiplied
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                pixels[offset] = premultiplied.red
                pixels[offset + 1] = premultiplied.green
                pixels[offset + 2] = premultiplied.blue
                pixels[offset + 3] = premultiplied.alpha
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The memory the pixels occupy, in bytes: what a memory cache charges for this image.
    public var cost: Int { pixels.count }

    /// Whether any pixel is not fully opaque (decides PNG over JPEG when encoding a variant).
    public var hasTransparency: Bool {
        var index = 3
        while index < pixels.count {
            if pixels[index] != 255 { return true }
            index += 4
        }
        return false
    }

    /// The premultiplied colour at (`x`, `y`).
    public subscript(x: Int, y: Int) -> RGBA {
        let offset = (y * width + x) * 4
        return RGBA(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2], alpha: pixels[offset + 3])
    }
}

/// An 8-bit RGBA colour (straight, not premultiplied, unless a doc says otherwise).
public struct RGBA: Sendable, Hashable {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) – 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour from its four channels.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Fully transparent black.
    public static let transparent = RGBA(red: 0, green: 0, blue: 0, alpha: 0)
    /// Opaque white.
    public static let white = RGBA(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBA(red: 0, green: 0, blue: 0)

    /// This colour with each channel multiplied by alpha (rounded).
    public var premultiplied: RGBA {
        let alphaValue = UInt16(alpha)
        func scale(_ channel: UInt8) -> UInt8 { UInt8((UInt16(channel) * alphaValue + 127) / 255) }
        return RGBA(red: scale(red), green: scale(green), blue: scale(blue), alpha: alpha)
    }
}

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

extension PixelSize {
    /// This size with width and height exchanged: the upright size of a quarter-turned image.
    var transposed: PixelSize { PixelSize(width: height, height: width) }
}

extension Image {
    /// The centred `width × height` part of this image (each side clamped to the image's).
    func centerCropped(width: Int, height: Int) -> Image {
        let cropWidth = min(max(width, 1), self.width)
        let cropHeight = min(max(height, 1), self.height)
        let left = (self.width - cropWidth) / 2
        let top = (self.height - cropHeight) / 2
        return cropped(to: PixelRect(x: left, y: top, width: cropWidth, height: cropHeight))
    }

    /// The part of this image inside `rect` (clamped to the image, at least one pixel).
    func cropped(to rect: PixelRect) -> Image {
        let left = min(max(rect.x, 0), width - 1)
        let top = min(max(rect.y, 0), height - 1)
        let cropWidth = min(max(rect.width, 1), width - left)
        let cropHeight = min(max(rect.height, 1), height - top)
        guard cropWidth != width || cropHeight != height else { return self }
        let rowBytes = cropWidth * 4
        var cropped = [UInt8]()
        cropped.reserveCapacity(rowBytes * cropHeight)
        for row in top..<(top + cropHeight) {
            let start = (row * width + left) * 4
            cropped.append(contentsOf: pixels[start..<(start + rowBytes)])
        }
        return Image(width: cropWidth, height: cropHeight, pixels: cropped)
    }
}
