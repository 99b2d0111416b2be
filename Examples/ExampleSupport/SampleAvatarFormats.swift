import Foundation
import MediaAssetsImage

/// The portraits served as WebP and as an animated GIF, so the demo's list shows formats beyond JPEG and PNG.
enum SampleAvatarFormats {
    /// A lossy WebP at quality 85 (libwebp7, present on a fresh machine).
    static func webp(_ image: Image) throws -> Data {
        try ImageEncoder.webp(quality: 85).encode(image)
    }

    /// An animated GIF of `image` in three frames that brighten and fade back (giflib, present on a fresh
    /// machine), quantized to a 6×6×6 colour cube; static styles show its first frame.
    static func animatedGIF(_ image: Image) throws -> Data {
        let levels: [UInt8] = [0, 51, 102, 153, 204, 255]
        let palette = levels.flatMap { red in
            levels.flatMap { green in levels.map { blue in RGBA(red: red, green: green, blue: blue) } }
        }
        let frames = [0, 40, 0].map { lift in
            GIFWriter.Frame(
                width: image.width, height: image.height, indices: indices(of: image, lift: lift), delayHundredths: 40
            )
        }
        return try GIFWriter().write { file, writer in
            try writer.screen(file, image.width, image.height, palette)
            try writer.netscape(file, 0)
            for frame in frames { try writer.frame(file, frame) }
        }
    }

    /// The colour-cube index of each pixel, brightened by `lift` (the portraits are opaque).
    private static func indices(of image: Image, lift: Int) -> [UInt8] {
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        let pixels = image.pixels
        for index in indices.indices {
            func level(_ channel: Int) -> Int { (min(255, Int(pixels[index * 4 + channel]) + lift) + 25) / 51 }
            indices[index] = UInt8(level(0) * 36 + level(1) * 6 + level(2))
        }
        return indices
    }
}
