import Foundation
import MediaAssetsImage

/// A JPEG (quality 90) that compresses like a photo: smooth gradients, soft shapes with hard edges, and
/// sensor-like noise. Deterministic for a `seed`, so runs compare.
///
/// With `fineDetail`, also texture at every scale (equal contrast per octave, as the 1/f spectrum of natural
/// images gives) and a spoked wheel whose spokes converge to detail finer than any pixel: what makes a soft
/// thumbnail visibly soft. The scene is the same at every size (its features are fractions of the width).
func makePhotoLikeJPEG(width: Int, height: Int, seed: UInt64, fineDetail: Bool = false) throws -> Data {
    try ImageEncoder.jpeg(
        makePhotoLikeImage(width: width, height: height, seed: seed, fineDetail: fineDetail), quality: 90
    )
}

/// The opaque picture behind `makePhotoLikeJPEG`.
func makePhotoLikeImage(width: Int, height: Int, seed: UInt64, fineDetail: Bool = false) -> Image {
    var random = PhotoNoiseRandom(seed: seed)
    let shapes = (0..<12).map { _ in
        PhotoShape(
            centerX: Int(random.next() % UInt64(width)), centerY: Int(random.next() % UInt64(height)),
            radius: max(4, Int(random.next() % UInt64(max(width, height) / 4 + 1))),
            color: (Int(random.next() % 256), Int(random.next() % 256), Int(random.next() % 256))
        )
    }
    let texture = fineDetail ? PhotoTexture(width: width, height: height, random: &random) : nil
    let wheel = fineDetail ? PhotoWheel(width: width, height: height) : nil
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
                if let texture, let wheel {
                    let shade = texture.value(x: x, y: y) + wheel.shade(x: x, y: y)
                    red += shade
                    green += shade
                    blue += shade
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

/// Value noise in five octaves, from 1/25 to 1/400 of the width, each of the same contrast (±12).
private struct PhotoTexture {
    struct Octave {
        var cell: Double
        var columns: Int
        var lattice: [Double]
    }

    var octaves: [Octave] = []

    init(width: Int, height: Int, random: inout PhotoNoiseRandom) {
        for divisor in [25.0, 50, 100, 200, 400] {
            let cell = max(Double(width) / divisor, 1.5)
            let columns = Int(Double(width) / cell) + 2
            let rows = Int(Double(height) / cell) + 2
            let lattice = (0..<(columns * rows)).map { _ in Double(random.next() % 2001) / 1000 - 1 }
            octaves.append(Octave(cell: cell, columns: columns, lattice: lattice))
        }
    }

    /// The summed octaves at a pixel, bilinearly interpolated with a smoothstep.
    func value(x: Int, y: Int) -> Int {
        var sum = 0.0
        for octave in octaves {
            let u = Double(x) / octave.cell
            let v = Double(y) / octave.cell
            let column = Int(u)
            let row = Int(v)
            let fractionX = u - Double(column)
            let fractionY = v - Double(row)
            let smoothX = fractionX * fractionX * (3 - 2 * fractionX)
            let smoothY = fractionY * fractionY * (3 - 2 * fractionY)
            let base = row * octave.columns + column
            let top = octave.lattice[base] + (octave.lattice[base + 1] - octave.lattice[base]) * smoothX
            let bottom =
                octave.lattice[base + octave.columns]
                + (octave.lattice[base + octave.columns + 1] - octave.lattice[base + octave.columns]) * smoothX
            sum += (top + (bottom - top) * smoothY) * 12
        }
        return Int(sum.rounded())
    }
}

/// A wheel of 72 dark spokes: coarse at the rim, finer than a pixel at the hub.
private struct PhotoWheel {
    let centerX: Double
    let centerY: Double
    let radius: Double

    init(width: Int, height: Int) {
        centerX = Double(width) * 0.55
        centerY = Double(height) * 0.5
        radius = Double(min(width, height)) * 0.3
    }

    func shade(x: Int, y: Int) -> Int {
        let deltaX = Double(x) - centerX
        let deltaY = Double(y) - centerY
        guard deltaX * deltaX + deltaY * deltaY < radius * radius else { return 0 }
        let turns = (atan2(deltaY, deltaX) / (2 * Double.pi) + 1) * 72
        return turns - turns.rounded(.down) < 0.3 ? -90 : 0
    }
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
