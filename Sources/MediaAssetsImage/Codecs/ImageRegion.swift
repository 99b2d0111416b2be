/// The part of an image a processor needs, said before the image's size is known, so a decoder can decode
/// only that part (JPEG skips the inverse DCT and colour conversion of the rest).
///
/// A processor names its region through `ImageProcessing.regionOfInterest`; `ImageDecodingOptions` carries it
/// to the decoder, which then returns exactly `rect(in:)` of the upright image at the decoded scale.
public enum ImageRegion: Sendable, Hashable, CustomStringConvertible {
    /// The largest centred part with the aspect ratio `width : height`: what an aspect-fill crop to a size of
    /// that shape keeps (a 4:3 photo cropped square keeps its middle three quarters of columns).
    case centered(aspectRatio: PixelSize)
    /// A rectangle in fractions of the upright image's width and height (`0...1`), for example
    /// `.relative(x: 0, y: 0, width: 0.5, height: 0.5)` for the top-left quarter.
    case relative(x: Double, y: Double, width: Double, height: Double)

    /// The region in an upright image of `size`, rounded outward to whole pixels and never empty.
    ///
    /// Rounding outward keeps a centred region centred: the pixels left out on one side equal those on the
    /// other, so an aspect-fill crop of the result is the crop of the whole image. A region with a
    /// non-positive or non-finite part is the whole image.
    package func rect(in size: PixelSize) -> PixelRect {
        let whole = PixelRect(wholeOf: size)
        guard size.width > 0, size.height > 0 else { return whole }
        switch self {
        case .centered(let aspect):
            guard aspect.width > 0, aspect.height > 0 else { return whole }
            // Compare width × aspect.height with height × aspect.width in integers: no rounding decides it.
            if size.width * aspect.height > size.height * aspect.width {
                let keptWidth = Double(size.height) * Double(aspect.width) / Double(aspect.height)
                let left = Self.outerEdge(of: (Double(size.width) - keptWidth) / 2)
                return PixelRect(x: left, y: 0, width: size.width - 2 * left, height: size.height)
            }
            let keptHeight = Double(size.width) * Double(aspect.height) / Double(aspect.width)
            let top = Self.outerEdge(of: (Double(size.height) - keptHeight) / 2)
            return PixelRect(x: 0, y: top, width: size.width, height: size.height - 2 * top)
        case .relative(let x, let y, let width, let height):
            let parts = [x, y, width, height]
            guard parts.allSatisfy({ $0.isFinite }), width > 0, height > 0 else { return whole }
            let left = Self.clamp((x * Double(size.width)).rounded(.down), to: size.width - 1)
            let top = Self.clamp((y * Double(size.height)).rounded(.down), to: size.height - 1)
            let right = Self.clamp(((x + width) * Double(size.width)).rounded(.up), to: size.width)
            let bottom = Self.clamp(((y + height) * Double(size.height)).rounded(.up), to: size.height)
            return PixelRect(x: left, y: top, width: max(right - left, 1), height: max(bottom - top, 1))
        }
    }

    /// `centered(1:1)` or `relative(0,0,0.5,0.5)`: part of the identifier of a decode that uses the region.
    public var description: String {
        switch self {
        case .centered(let aspect): return "centered(\(aspect.width):\(aspect.height))"
        case .relative(let x, let y, let width, let height): return "relative(\(x),\(y),\(width),\(height))"
        }
    }

    /// The same region in a canonical form: a centred aspect ratio in lowest terms (96:96 is 1:1), so regions
    /// that cut the same pixels compare equal.
    package var normalized: ImageRegion {
        guard case .centered(let aspect) = self, aspect.width > 0, aspect.height > 0 else { return self }
        var (a, b) = (aspect.width, aspect.height)
        while b != 0 { (a, b) = (b, a % b) }
        return .centered(aspectRatio: PixelSize(width: aspect.width / a, height: aspect.height / a))
    }

    /// The first whole pixel kept when `margin` pixels are cut: tiny float errors never cost a pixel.
    private static func outerEdge(of margin: Double) -> Int {
        max(0, Int((margin + 1e-9).rounded(.down)))
    }

    private static func clamp(_ value: Double, to upper: Int) -> Int {
        Int(min(max(value, 0), Double(max(upper, 0))))
    }
}

/// A rectangle of whole pixels: where a region of interest lies in a decoded image.
package struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// The left column.
    package var x: Int
    /// The top row.
    package var y: Int
    /// The width in pixels.
    package var width: Int
    /// The height in pixels.
    package var height: Int

    /// Creates a rectangle; values are not validated here.
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole of an image of `size`.
    package init(wholeOf size: PixelSize) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// The rectangle's size.
    package var size: PixelSize { PixelSize(width: width, height: height) }

    /// `"<width>x<height>+<x>+<y>"`, as ImageMagick writes geometry.
    package var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
