import Foundation

@testable import MediaAssetsImage

/// Test images built in code, and measurements over them.
enum ProcessingFixtures {
    /// Opaque 1-pixel black/white checkerboard.
    static func checkerboard(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width where (x + y) % 2 == 1 {
                let offset = (y * width + x) * 4
                pixels[offset] = 0
                pixels[offset + 1] = 0
                pixels[offset + 2] = 0
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// Opaque smooth content: gradients plus low-frequency waves (what photos mostly are).
    static func smooth(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width)
                let v = Double(y) / Double(height)
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(40 + 170 * u)
                pixels[offset + 1] = UInt8(128 + 90 * sin(2 * .pi * (1.5 * u + v)))
                pixels[offset + 2] = UInt8(128 + 100 * cos(2 * .pi * 2 * v) * u)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// Pseudo-random premultiplied pixels (deterministic), including transparent ones.
    static func noise(width: Int, height: Int, seed: UInt32 = 0x9E37_79B9) -> Image {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let alpha = UInt8(truncatingIfNeeded: state >> 24)
            let color = RGBA(
                red: UInt8(truncatingIfNeeded: state), green: UInt8(truncatingIfNeeded: state >> 8),
                blue: UInt8(truncatingIfNeeded: state >> 16), alpha: alpha
            ).premultiplied
            pixels[offset] = color.red
            pixels[offset + 1] = color.green
            pixels[offset + 2] = color.blue
            pixels[offset + 3] = color.alpha
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// The exact area average of `factor × factor` blocks, in Double.
    static func boxReference(_ image: Image, factor: Int) -> [Double] {
        let width = image.width / factor
        let height = image.height / factor
        var result = [Double](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<4 {
                    var sum = 0
                    for row in (y * factor)..<((y + 1) * factor) {
                        for column in (x * factor)..<((x + 1) * factor) {
                            sum += Int(image.pixels[(row * image.width + column) * 4 + channel])
                        }
                    }
                    result[(y * width + x) * 4 + channel] = Double(sum) / Double(factor * factor)
                }
            }
        }
        return result
    }

    /// Peak signal-to-noise ratio in dB between `image` and `reference` over the colour channels.
    static func psnr(_ image: Image, _ reference: [Double]) -> Double {
        var squaredError = 0.0
        var count = 0
        for offset in stride(from: 0, to: reference.count, by: 4) {
            for channel in 0..<3 {
                let difference = Double(image.pixels[offset + channel]) - reference[offset + channel]
                squaredError += difference * difference
                count += 1
            }
        }
        let meanSquaredError = squaredError / Double(count)
        return meanSquaredError == 0 ? .infinity : 10 * log10(255 * 255 / meanSquaredError)
    }

    /// Whether every colour channel is at most its alpha.
    static func isPremultiplied(_ image: Image) -> Bool {
        stride(from: 0, to: image.pixels.count, by: 4).allSatisfy { offset in
            let alpha = image.pixels[offset + 3]
            return image.pixels[offset] <= alpha && image.pixels[offset + 1] <= alpha
                && image.pixels[offset + 2] <= alpha
        }
    }

    /// Alpha at (`x`, `y`).
    static func alpha(_ image: Image, _ x: Int, _ y: Int) -> UInt8 {
        image[x, y].alpha
    }
}
