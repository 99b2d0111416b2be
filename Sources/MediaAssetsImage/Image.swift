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
