import Foundation
import MediaAssetsImage

/// A JPEG (quality 90) that compresses like a photo: smooth gradients, soft shapes with hard edges, and
/// sensor-like noise. Deterministic for a `seed`, so runs compare.
func makePhotoLikeJPEG(width: Int, height: Int, seed: UInt64) throws -> Data {
    try ImageEncoder.jpeg(makePhotoLikeImage(width: width, height: height, seed: seed), quality: 90)
}

/// The opaque picture behind `makePhotoLikeJPEG`.
func makePhotoLikeImage(width: Int, height: Int, seed: UInt64) -> Image {
    var random = PhotoNoiseRandom(seed: seed)
    let shapes = (0..<12).map { _ in
        PhotoShape(
            centerX: Int(random.next() % UInt64(width)), centerY: Int(random.next() % UInt64(height)),
            radius: max(4, Int(random.next() % UInt64(max(width, height) / 4 + 1))),
            color: (Int(random.next() % 256), Int(random.next() % 256), Int(random.next() % 256))
        )
    }
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    pixels.withUnsafeMutableBufferPointer { buffer in
        for y in 0..<height {
            // Sky-to-ground gradient with a slow horizontal drift.
            let vertical = y * 255 / max(height - 1, 1)
            for x in 0..<width {
                let horizontal = x * 255 / max(width - 1, 1)
                var red = 80 + vertical / 2 + horizontal / 8
                var green = 120 + horizontal / 4 - vertical / 4
                var blue = 230 - vertical * 3 / 5
                for shape in shapes where shape.contains(x: x, y: y) {
                    red = (red + shape.color.0 * 3) / 4
                    green = (green + shape.color.1 * 3) / 4
                    blue = (blue + shape.color.2 * 3) / 4
                }
                let noise = Int(random.next() & 15) - 8
                let offset = (y * width + x) * 4
                buffer[offset] = UInt8(clamping: red + noise)
                buffer[offset + 1] = UInt8(clamping: green + noise)
                buffer[offset + 2] = UInt8(clamping: blue + noise)
            }
        }
    }
    return Image(width: width, height: height, pixels: pixels)
}

private struct PhotoShape {
    var centerX: Int
    var centerY: Int
    var radius: Int
    var color: (Int, Int, Int)

    func contains(x: Int, y: Int) -> Bool {
        let deltaX = x - centerX
        let deltaY = y - centerY
        return deltaX * deltaX + deltaY * deltaY <= radius * radius
    }
}

/// SplitMix64: fast, deterministic benchmark noise.
struct PhotoNoiseRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
