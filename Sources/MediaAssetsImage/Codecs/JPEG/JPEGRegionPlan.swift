import Foundation

/// Where a JPEG decode's upright region of interest lies in the stored (not yet oriented) pixels, and the DCT
/// scale that leaves it enough resolution.
struct JPEGRegionPlan {
    /// The orientation applied after decoding (`.identity` when it is not applied).
    let orientation: ImageOrientation
    /// The part of the upright image wanted; `nil` for all of it.
    let region: ImageRegion?

    /// The size the upright region must reach, if the file is that large: the target times the headroom.
    static func neededSize(target: PixelSize, headroom: Double) -> PixelSize {
        let factor = headroom.isFinite ? max(headroom, 1) : 1
        // Clamped far above any decodable size, so a hostile target cannot overflow `Int`.
        func scaled(_ side: Int) -> Int { Int(min((Double(side) * factor).rounded(.up), 1e9)) }
        return PixelSize(width: scaled(target.width), height: scaled(target.height))
    }

    /// The upright region in an image decoded (stored) at `storedSize`.
    func uprightRect(storedSize: PixelSize) -> PixelRect {
        let upright = orientation.swapsDimensions ? storedSize.transposed : storedSize
        return region?.rect(in: upright) ?? PixelRect(wholeOf: upright)
    }

    /// The stored pixels that `OrientationTransform` shows as `uprightRect(storedSize:)`.
    func storedRect(storedSize: PixelSize) -> PixelRect {
        let rect = uprightRect(storedSize: storedSize)
        let first = storedPixel(x: rect.x, y: rect.y, storedSize: storedSize)
        let last = storedPixel(x: rect.x + rect.width - 1, y: rect.y + rect.height - 1, storedSize: storedSize)
        return PixelRect(
            x: min(first.x, last.x), y: min(first.y, last.y),
            width: abs(last.x - first.x) + 1, height: abs(last.y - first.y) + 1
        )
    }

    /// The stored pixel shown at upright (`x`, `y`): the inverse of `OrientationTransform`'s mapping.
    func storedPixel(x: Int, y: Int, storedSize: PixelSize) -> (x: Int, y: Int) {
        let lastColumn = storedSize.width - 1
        let lastRow = storedSize.height - 1
        switch orientation {
        case .identity: return (x, y)
        case .flipHorizontal: return (lastColumn - x, y)
        case .rotate180: return (lastColumn - x, lastRow - y)
        case .flipVertical: return (x, lastRow - y)
        case .transpose: return (y, x)
        case .rotate90Clockwise: return (y, lastRow - x)
        case .transverse: return (lastColumn - y, lastRow - x)
        case .rotate90CounterClockwise: return (lastColumn - y, x)
        }
    }
}

/// Feeds arbitrary bytes to the JPEG decoder's region path: DCT-scaled, cropped (`jpeg_crop_scanline`),
/// rows skipped (`jpeg_skip_scanlines`) and turned by the EXIF orientation, for a centred and an off-centre
/// region.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzJPEGRegionDecoder(_ data: Data) {
    let regions: [ImageRegion] = [
        .centered(aspectRatio: .square(1)), .relative(x: 0.6, y: 0.1, width: 0.3, height: 0.5),
    ]
    for region in regions {
        let options = ImageDecodingOptions(
            maxPixelCount: 4_000_000, targetSize: PixelSize(width: 7, height: 5), regionOfInterest: region
        )
        _ = try? JPEGDecoder().decode(data, options: options)
    }
}
