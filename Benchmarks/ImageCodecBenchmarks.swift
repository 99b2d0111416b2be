import Foundation
import MediaAssetsImage

/// Codec rows: JPEG full decode vs DCT-scaled decode, PNG decode/encode, JPEG encode.
func runImageCodecBenchmarks(table: BenchmarkTable) async throws {
    let sizes = [(512, 512), (1024, 768), (2048, 1536), (3648, 2736)]
    let photos = try sizes.enumerated().map { index, size in
        try makePhotoLikeJPEG(width: size.0, height: size.1, seed: UInt64(index + 1))
    }
    let count = Double(photos.count)
    let thumbnail = ImageDecodingOptions(targetSize: PixelSize(width: 96, height: 96))

    let headerOnly = try medianSeconds { for photo in photos { blackHole(try ImageDecoder.header(of: photo)) } }
    let fullDecode = try medianSeconds { for photo in photos { blackHole(try ImageDecoder.decode(photo)) } }
    let scaledDecode = try medianSeconds {
        for photo in photos { blackHole(try ImageDecoder.decode(photo, options: thumbnail)) }
    }
    table.add("jpeg decode full, 512² … 3648×2736 (mean/image)", unit: "ms", median: fullDecode / count * 1e3,
              baseline: "jpeg header only (same set)", baselineMedian: headerOnly / count * 1e3)
    table.add("jpeg decode target 96² (DCT scale), mean/image", unit: "ms", median: scaledDecode / count * 1e3,
              baseline: "jpeg decode full (same set)", baselineMedian: fullDecode / count * 1e3)

    let largest = photos[photos.count - 1]
    let largeFull = try medianSeconds { blackHole(try ImageDecoder.decode(largest)) }
    let largeScaled = try medianSeconds { blackHole(try ImageDecoder.decode(largest, options: thumbnail)) }
    table.add("jpeg decode target 96², 3648×2736 (10 MP)", unit: "ms", median: largeScaled * 1e3,
              baseline: "jpeg decode full 3648×2736", baselineMedian: largeFull * 1e3)

    try addOrientationRow(table: table)
    try addPNGRows(table: table)
}

/// What applying EXIF orientation 6 (a quarter turn) adds to a 1024×768 decode.
private func addOrientationRow(table: BenchmarkTable) throws {
    let photo = try makePhotoLikeJPEG(width: 1024, height: 768, seed: 9)
    let noOrientation = ImageDecodingOptions(appliesOrientation: false)
    // Same bytes, decoded with and without the quarter turn, so only the transform differs.
    let image = try ImageDecoder.decode(photo)
    let rotatedSource = try rotatedJPEG(image)
    let plain = try medianSeconds { blackHole(try ImageDecoder.decode(rotatedSource, options: noOrientation)) }
    let rotated = try medianSeconds { blackHole(try ImageDecoder.decode(rotatedSource)) }
    table.add("jpeg decode 1024×768 + EXIF rotate 90°", unit: "ms", median: rotated * 1e3,
              baseline: "jpeg decode 1024×768, orientation ignored", baselineMedian: plain * 1e3)
}

private func addPNGRows(table: BenchmarkTable) throws {
    let photo = makePhotoLikeImage(width: 1024, height: 1024, seed: 5)
    let translucent = withGradientAlpha(photo)
    let png = try ImageEncoder.png(translucent)
    let jpeg = try ImageEncoder.jpeg(photo, quality: 90)
    let pngDecode = try medianSeconds { blackHole(try ImageDecoder.decode(png)) }
    let jpegDecode = try medianSeconds { blackHole(try ImageDecoder.decode(jpeg)) }
    table.add("png decode 1024² RGBA (premultiplied)", unit: "ms", median: pngDecode * 1e3,
              baseline: "jpeg decode 1024² photo", baselineMedian: jpegDecode * 1e3)

    let avatar = withGradientAlpha(makePhotoLikeImage(width: 96, height: 96, seed: 6))
    let pngEncodeSmall = try medianSeconds(repetitions: 21) { blackHole(try ImageEncoder.png(avatar)) }
    let jpegEncodeSmall = try medianSeconds(repetitions: 21) { blackHole(try ImageEncoder.jpeg(avatar)) }
    table.add("png encode 96² RGBA", unit: "ms", median: pngEncodeSmall * 1e3,
              baseline: "jpeg encode 96² q85", baselineMedian: jpegEncodeSmall * 1e3)

    let medium = makePhotoLikeImage(width: 1024, height: 768, seed: 7)
    let jpegEncode = try medianSeconds { blackHole(try ImageEncoder.jpeg(medium)) }
    let pngEncode = try medianSeconds { blackHole(try ImageEncoder.png(medium)) }
    table.add("jpeg encode 1024×768 q85", unit: "ms", median: jpegEncode * 1e3,
              baseline: "png encode 1024×768 RGB", baselineMedian: pngEncode * 1e3)
}

/// `image` with alpha falling from 255 at the top to 0 at the bottom (premultiplied).
private func withGradientAlpha(_ image: Image) -> Image {
    var pixels = image.pixels
    pixels.withUnsafeMutableBufferPointer { buffer in
        for y in 0..<image.height {
            let alpha = UInt32(255 - y * 255 / max(image.height - 1, 1))
            for x in 0..<image.width {
                let offset = (y * image.width + x) * 4
                for channel in 0..<3 {
                    buffer[offset + channel] = UInt8((UInt32(buffer[offset + channel]) * alpha + 127) / 255)
                }
                buffer[offset + 3] = UInt8(alpha)
            }
        }
    }
    return Image(width: image.width, height: image.height, pixels: pixels)
}

/// `image` as a JPEG whose EXIF says "rotate 90° clockwise": an APP1 segment spliced in right after SOI.
private func rotatedJPEG(_ image: Image) throws -> Data {
    let jpeg = try ImageEncoder.jpeg(image, quality: 90)
    let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    return Data(jpeg.prefix(2)) + Data(segment) + Data(jpeg.dropFirst(2))
}
