/// A rectangle in source pixel coordinates, fractional so that a centre crop maps exactly.
struct SourceRegion: Hashable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    /// The whole of `image`.
    init(wholeOf image: Image) {
        self.init(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
    }

    init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
