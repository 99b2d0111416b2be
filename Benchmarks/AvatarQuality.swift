import Foundation
import MediaAssetsImage

/// The reference an avatar is judged against: the aspect-fill centre of the full-resolution image reduced to
/// `size` by a plain separable Lanczos3 whose kernel is stretched by the whole reduction (no DCT scaling, no
/// box stage): slow, but the best a linear filter on the stored values gives.
func referenceAvatar(of image: Image, size: PixelSize) -> Image {
    let scale = max(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
    let regionWidth = Double(size.width) / scale
    let regionHeight = Double(size.height) / scale
    let horizontal = lanczosTaps(
        inputSize: image.width, origin: (Double(image.width) - regionWidth) / 2, extent: regionWidth,
        outputSize: size.width
    )
    let vertical = lanczosTaps(
        inputSize: image.height, origin: (Double(image.height) - regionHeight) / 2, extent: regionHeight,
        outputSize: size.height
    )
    // Rows first, every source row reduced to `size.width` pixels of three channels.
    var rows = [Double](repeating: 0, count: image.height * size.width * 3)
    for y in 0..<image.height {
        for (outputX, taps) in horizontal.enumerated() {
            var sums = (0.0, 0.0, 0.0)
            for (x, weight) in taps {
                let offset = (y * image.width + x) * 4
                sums.0 += weight * Double(image.pixels[offset])
                sums.1 += weight * Double(image.pixels[offset + 1])
                sums.2 += weight * Double(image.pixels[offset + 2])
            }
            let target = (y * size.width + outputX) * 3
            rows[target] = sums.0
            rows[target + 1] = sums.1
            rows[target + 2] = sums.2
        }
    }
    var pixels = [UInt8](repeating: 255, count: size.width * size.height * 4)
    for (outputY, taps) in vertical.enumerated() {
        for outputX in 0..<size.width {
            for channel in 0..<3 {
                var sum = 0.0
                for (y, weight) in taps { sum += weight * rows[(y * size.width + outputX) * 3 + channel] }
                pixels[(outputY * size.width + outputX) * 4 + channel] = UInt8(min(max(sum.rounded(), 0), 255))
            }
        }
    }
    return Image(width: size.width, height: size.height, pixels: pixels)
}

/// For each output pixel, the input pixels it reads and their normalised Lanczos3 weights.
private func lanczosTaps(inputSize: Int, origin: Double, extent: Double, outputSize: Int) -> [[(Int, Double)]] {
    let scale = max(extent / Double(outputSize), 1)
    let support = 3 * scale
    return (0..<outputSize).map { outputIndex in
        let center = origin + (Double(outputIndex) + 0.5) * extent / Double(outputSize)
        let first = max(0, Int((center - support).rounded(.down)))
        let last = min(inputSize - 1, Int((center + support).rounded(.up)))
        var taps: [(Int, Double)] = []
        for input in first...last {
            let distance = (Double(input) + 0.5 - center) / scale
            if abs(distance) < 3 { taps.append((input, lanczos3(distance))) }
        }
        let total = taps.reduce(0) { $0 + $1.1 }
        return taps.map { ($0.0, $0.1 / total) }
    }
}

private func lanczos3(_ x: Double) -> Double {
    if abs(x) < 1e-9 { return 1 }
    let pi = Double.pi
    return 3 * sin(pi * x) * sin(pi * x / 3) / (pi * pi * x * x)
}

/// Peak signal-to-noise ratio of the colour channels of `image` against `reference`, in dB.
func psnr(_ image: Image, _ reference: Image) -> Double {
    precondition(image.width == reference.width && image.height == reference.height, "sizes differ")
    var squaredError = 0.0
    var samples = 0
    for offset in stride(from: 0, to: image.pixels.count, by: 4) {
        for channel in 0..<3 {
            let difference = Double(image.pixels[offset + channel]) - Double(reference.pixels[offset + channel])
            squaredError += difference * difference
            samples += 1
        }
    }
    let meanSquaredError = max(squaredError / Double(samples), 1e-10)
    return 10 * log10(255 * 255 / meanSquaredError)
}
