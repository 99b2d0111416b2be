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
    table.add(
        "jpeg decode full, 512² … 3648×2736 (mean/image)", unit: "ms", median: fullDecode / count * 1e3,
        baseline: "jpeg header only (same set)", baselineMedian: headerOnly / count * 1e3)
    table.add(
        "jpeg decode target 96² (DCT scale), mean/image", unit: "ms", median: scaledDecode / count * 1e3,
        baseline: "jpeg decode full (same set)", baselineMedian: fullDecode / count * 1e3)

    let largest = photos[photos.count - 1]
    let largeFull = try medianSeconds { blackHole(try ImageDecoder.decode(largest)) }
    let largeScaled = try medianSeconds { blackHole(try ImageDecoder.decode(largest, options: thumbnail)) }
    table.add(
        "jpeg decode target 96², 3648×2736 (10 MP)", unit: "ms", median: largeScaled * 1e3,
        baseline: "jpeg decode full 3648×2736", baselineMedian: largeFull * 1e3)

    try addOrientationRow(table: table)
    try addPNGRows(table: table)
    try addRunTimeFormatRows(table: table)
}

/// WebP, GIF and HEIC rows (libwebp, giflib, libheif loaded at run time; a missing one skips its rows).
private func addRunTimeFormatRows(table: BenchmarkTable) throws {
    let photo = makePhotoLikeImage(width: 1024, height: 768, seed: 11)
    let jpeg = try ImageEncoder.jpeg(photo, quality: 85)
    let jpegDecode = try medianSeconds { blackHole(try ImageDecoder.decode(jpeg)) }
    do {
        let webp = try WebPEncoder(compression: .lossy(quality: 85)).encode(photo)
        let webpDecode = try medianSeconds { blackHole(try ImageDecoder.decode(webp)) }
        table.add(
            "webp decode 1024×768 q85 (\(webp.count / 1024) KiB)", unit: "ms", median: webpDecode * 1e3,
            baseline: "jpeg decode same photo q85 (\(jpeg.count / 1024) KiB)", baselineMedian: jpegDecode * 1e3)

        let avatars = try (0..<40).map { seed in
            try AvatarStyle.circle(diameter: 96).process(makePhotoLikeImage(width: 96, height: 96, seed: UInt64(seed)))
        }
        let webpEncoder = WebPEncoder(compression: .lossy(quality: 80))
        let pngEncoder = PNGEncoder(compressionLevel: 1)
        let webpBytes = try avatars.reduce(0) { $0 + (try webpEncoder.encode($1)).count }
        let pngBytes = try avatars.reduce(0) { $0 + (try pngEncoder.encode($1)).count }
        table.add(
            "webp q80 variant size, 40 circle avatars 96²", unit: "KiB", median: Double(webpBytes) / 1024,
            baseline: "png level 1 variants (same set)", baselineMedian: Double(pngBytes) / 1024)
        let webpEncode = try medianSeconds { for avatar in avatars { blackHole(try webpEncoder.encode(avatar)) } }
        let pngEncode = try medianSeconds { for avatar in avatars { blackHole(try pngEncoder.encode(avatar)) } }
        table.add(
            "webp q80 encode 96² avatar (mean of 40)", unit: "ms", median: webpEncode / 40 * 1e3,
            baseline: "png level 1 encode (same set)", baselineMedian: pngEncode / 40 * 1e3)
    } catch ImageError.libraryMissing(_, let library, _, _) {
        print("(webp rows skipped: \(library) is not installed)")
    }
    do {
        let gif = try animatedGIF(frameCount: 100)
        let allFrames = try medianSeconds { blackHole(try ImageCodecRegistry.standard.decodeAnimation(gif)) }
        let firstFrame = try medianSeconds { blackHole(try ImageDecoder.decode(gif)) }
        table.add(
            "gif decode 100 frames 256², per frame", unit: "ms", median: allFrames / 100 * 1e3,
            baseline: "gif decode first frame only", baselineMedian: firstFrame * 1e3)
    } catch ImageError.libraryMissing(_, let library, _, _) {
        print("(gif rows skipped: \(library) is not installed)")
    }
    do {
        let heic = try HEIFFixtureEncoder.encode(photo)
        let heicDecode = try medianSeconds { blackHole(try ImageDecoder.decode(heic)) }
        table.add(
            "heic (x265 q90) decode 1024×768 (\(heic.count / 1024) KiB)", unit: "ms", median: heicDecode * 1e3,
            baseline: "jpeg decode same photo q85", baselineMedian: jpegDecode * 1e3)
    } catch ImageError.libraryMissing(_, let library, _, _) {
        print("(heic rows skipped: \(library) is not installed)")
    }
}

/// A 256×256 GIF of `frameCount` frames: a 64×64 moving square over a first full frame, written by giflib.
private func animatedGIF(frameCount: Int) throws -> Data {
    let palette = (0..<256).map { RGBA(red: UInt8($0), green: UInt8(255 - $0), blue: UInt8($0 / 2)) }
    let background = GIFWriter.Frame(
        width: 256, height: 256, indices: (0..<65536).map { UInt8(($0 % 256 + $0 / 256) % 256) }
    )
    let squares = (1..<frameCount).map { index in
        GIFWriter.Frame(
            left: index % 192, top: (index * 3) % 192, width: 64, height: 64,
            indices: (0..<4096).map { UInt8(($0 + index) % 256) }, disposal: 2, delayHundredths: 4
        )
    }
    return try GIFWriter().write { file, writer in
        try writer.screen(file, 256, 256, palette)
        try writer.netscape(file, 0)
        for frame in [background] + squares { try writer.frame(file, frame) }
    }
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
    table.add(
        "jpeg decode 1024×768 + EXIF rotate 90°", unit: "ms", median: rotated * 1e3,
        baseline: "jpeg decode 1024×768, orientation ignored", baselineMedian: plain * 1e3)
}

private func addPNGRows(table: BenchmarkTable) throws {
    let photo = makePhotoLikeImage(width: 1024, height: 1024, seed: 5)
    let translucent = withGradientAlpha(photo)
    let png = try ImageEncoder.png(translucent)
    let jpeg = try ImageEncoder.jpeg(photo, quality: 90)
    let pngDecode = try medianSeconds { blackHole(try ImageDecoder.decode(png)) }
    let jpegDecode = try medianSeconds { blackHole(try ImageDecoder.decode(jpeg)) }
    table.add(
        "png decode 1024² RGBA (premultiplied)", unit: "ms", median: pngDecode * 1e3,
        baseline: "jpeg decode 1024² photo", baselineMedian: jpegDecode * 1e3)

    let avatar = withGradientAlpha(makePhotoLikeImage(width: 96, height: 96, seed: 6))
    let pngEncodeSmall = try medianSeconds(repetitions: 21) { blackHole(try ImageEncoder.png(avatar)) }
    let jpegEncodeSmall = try medianSeconds(repetitions: 21) { blackHole(try ImageEncoder.jpeg(avatar)) }
    table.add(
        "png encode 96² RGBA", unit: "ms", median: pngEncodeSmall * 1e3,
        baseline: "jpeg encode 96² q85", baselineMedian: jpegEncodeSmall * 1e3)

    let medium = makePhotoLikeImage(width: 1024, height: 768, seed: 7)
    let jpegEncode = try medianSeconds { blackHole(try ImageEncoder.jpeg(medium)) }
    let pngEncode = try medianSeconds { blackHole(try ImageEncoder.png(medium)) }
    table.add(
        "jpeg encode 1024×768 q85", unit: "ms", median: jpegEncode * 1e3,
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
