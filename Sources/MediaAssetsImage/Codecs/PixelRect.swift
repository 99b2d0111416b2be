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
