import CDynamicCodecs
import CPNG
import Foundation

@testable import MediaAssetsImage

/// Pictures and files for the display-size decoding tests: detail at several scales, so a decode that reads the
/// wrong part or reduces badly shows up in PSNR.
enum DisplaySizeFixtures {
    /// An opaque picture: smooth gradients plus stripes of a few pixels' period and a circle with a hard edge.
    static func detailed(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let radius = Double(min(width, height)) / 3
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width)
                let v = Double(y) / Double(height)
                let stripes = 24 * sin(Double(x) / 3.1) * cos(Double(y) / 4.7)
                let dx = Double(x) - Double(width) / 2
                let dy = Double(y) - Double(height) / 2
                let inside = dx * dx + dy * dy < radius * radius ? 40.0 : 0
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(clamping: Int(40 + 150 * u + stripes + inside))
                pixels[offset + 1] = UInt8(clamping: Int(128 + 80 * sin(2 * .pi * (1.5 * u + v)) - inside))
                pixels[offset + 2] = UInt8(clamping: Int(60 + 120 * v + stripes / 2))
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// `image` as an 8-bit RGBA PNG, Adam7-interlaced when asked, at zlib level 1.
    static func png(_ image: Image, interlaced: Bool) throws -> Data {
        var straight = image.pixels
        straight.withUnsafeMutableBufferPointer { PixelConversion.unpremultiply($0) }
        var options = cpng_encode_options()
        options.width = UInt32(image.width)
        options.height = UInt32(image.height)
        options.stride = image.width * 4
        options.color_type = Int32(CPNG_COLOR_RGBA)
        options.bit_depth = 8
        options.interlaced = interlaced ? 1 : 0
        options.compression_level = 1
        return try ImageEncoder.encodePNG(straight, options: options)
    }

    /// The RGB bytes of an opaque `image`.
    static func rgb(of image: Image) -> [UInt8] {
        var rgb = [UInt8]()
        rgb.reserveCapacity(image.width * image.height * 3)
        for offset in stride(from: 0, to: image.pixels.count, by: 4) { rgb += image.pixels[offset..<offset + 3] }
        return rgb
    }

    /// The exact box reduction a display-size PNG decode must produce: `plan`'s output from `image`.
    static func boxReduced(_ image: Image, plan: DisplaySizePlan) -> Image {
        let rect = plan.outputRect
        let factor = plan.factor
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        for outputY in 0..<rect.height {
            for outputX in 0..<rect.width {
                let rows = ((rect.y + outputY) * factor)..<min((rect.y + outputY + 1) * factor, image.height)
                let columns = ((rect.x + outputX) * factor)..<min((rect.x + outputX + 1) * factor, image.width)
                let count = rows.count * columns.count
                for channel in 0..<4 {
                    var sum = 0
                    for y in rows {
                        for x in columns { sum += Int(image.pixels[(y * image.width + x) * 4 + channel]) }
                    }
                    pixels[(outputY * rect.width + outputX) * 4 + channel] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return Image(width: rect.width, height: rect.height, pixels: pixels)
    }

    /// A HEIC of `image` carrying `thumbnail` as its thumbnail (a `thmb` reference).
    static func heic(_ image: Image, thumbnail: Image?) throws -> Data {
        try HEIFFixtureEncoder.encode(image, thumbnail: thumbnail, fast: true)
    }

    /// A one-colour opaque picture.
    static func solid(width: Int, height: Int, _ color: RGBA) -> Image {
        Image(width: width, height: height, fill: color)
    }

    /// PSNR in dB over the colour channels (infinity when equal; 0 when the sizes differ).
    static func psnr(_ image: Image, _ reference: Image) -> Double {
        JPEGRegionDecodingTests.psnr(image, reference)
    }
}
