extension PixelSize {
    /// This size with width and height exchanged: the upright size of a quarter-turned image.
    var transposed: PixelSize { PixelSize(width: height, height: width) }
}
