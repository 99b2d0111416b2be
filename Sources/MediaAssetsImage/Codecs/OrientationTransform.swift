/// Turns and mirrors decoded pixels so an EXIF-oriented image reads upright.
enum OrientationTransform {
    /// `image` shown upright per `orientation` (width and height exchanged for 5–8).
    ///
    /// - Complexity: O(pixels), one pass of 4-byte moves in 64×64 tiles.
    static func apply(_ orientation: ImageOrientation, to image: Image) -> Image {
        if orientation == .identity { return image }
        return image.pixels.withUnsafeBytes { source in
            apply(orientation, toPixels: source, width: image.width, height: image.height)
        }
    }

    /// The `width × height` RGBA8 pixels at `source` shown upright per `orientation`, as a new image (so the
    /// source can be a reused decode buffer).
    static func apply(
        _ orientation: ImageOrientation, toPixels source: UnsafeRawBufferPointer, width: Int, height: Int
    ) -> Image {
        let stored = PixelSize(width: width, height: height)
        let output = orientation.swapsDimensions ? stored.transposed : stored
        // Destination (x, y) reads source pixel `base + x * stepX + y * stepY` (indices in pixels).
        let last = width - 1
        let bottom = (height - 1) * width
        let (base, stepX, stepY): (Int, Int, Int)
        switch orientation {
        case .identity: (base, stepX, stepY) = (0, 1, width)
        case .flipHorizontal: (base, stepX, stepY) = (last, -1, width)
        case .rotate180: (base, stepX, stepY) = (bottom + last, -1, -width)
        case .flipVertical: (base, stepX, stepY) = (bottom, 1, -width)
        case .transpose: (base, stepX, stepY) = (0, width, 1)
        case .rotate90Clockwise: (base, stepX, stepY) = (bottom, -width, 1)
        case .transverse: (base, stepX, stepY) = (bottom + last, -width, -1)
        case .rotate90CounterClockwise: (base, stepX, stepY) = (last, width, -1)
        }
        let byteCount = width * height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { destination, initializedCount in
            let target = UnsafeMutableRawBufferPointer(destination)
            // Quarter turns read the source column by column; square tiles keep those reads in cache.
            let tile = 64
            for tileY in stride(from: 0, to: output.height, by: tile) {
                let endY = min(tileY + tile, output.height)
                for tileX in stride(from: 0, to: output.width, by: tile) {
                    let endX = min(tileX + tile, output.width)
                    for y in tileY..<endY {
                        var sourceIndex = base + y * stepY + tileX * stepX
                        var targetOffset = (y * output.width + tileX) * 4
                        for _ in tileX..<endX {
                            let value = source.loadUnaligned(fromByteOffset: sourceIndex * 4, as: UInt32.self)
                            target.storeBytes(of: value, toByteOffset: targetOffset, as: UInt32.self)
                            targetOffset += 4
                            sourceIndex += stepX
                        }
                    }
                }
            }
            initializedCount = byteCount
        }
        return Image(width: output.width, height: output.height, pixels: pixels)
    }
}
