import MediaAssetsImage

/// Resize and shape rows, each against a naive implementation written here.
func runImageProcessingBenchmarks(table: BenchmarkTable) async throws {
    let photo = benchmarkPhoto(width: 2048, height: 1536)
    let square = benchmarkPhoto(width: 1024, height: 1024)
    let decoded = benchmarkPhoto(width: 500, height: 400)

    let thumbnail = ImageProcessors.Resize(size: .square(96), contentMode: .aspectFill)
    let thumbnailSize = try thumbnail.process(photo)
    try addResizeRow(
        table, name: "resize 2048x1536 -> 96x96 fill (128x96)", image: photo, processor: thumbnail,
        naiveSize: (thumbnailSize.width, thumbnailSize.height), repetitions: 15
    )
    try addResizeRow(
        table, name: "resize 1024x1024 -> 256x256", image: square,
        processor: .resize(size: PixelSize(width: 256, height: 256)), naiveSize: (256, 256), repetitions: 15
    )
    try addResizeRow(
        table, name: "resize 500x400 -> 96x96 fill+crop (avatar)", image: decoded,
        processor: .aspectFillCrop(size: .square(96)), naiveSize: (96, 96), repetitions: 101
    )

    let avatar = try ImageProcessors.Resize.aspectFillCrop(size: .square(96)).process(decoded)
    let style = AvatarStyle.circle(diameter: 96, borderWidth: 2, borderColor: .white)
    let styled = try medianSeconds(repetitions: 201) { blackHole(try style.process(avatar)) }
    let naive = medianSeconds(repetitions: 51) { blackHole(naiveCircleWithBorder(avatar, borderWidth: 2)) }
    table.add(
        "circle+border on 96x96 (AvatarStyle)", unit: "µs", median: styled * 1e6,
        baseline: "naive 4x4-supersampled mask, every pixel", baselineMedian: naive * 1e6
    )
}

private func addResizeRow(
    _ table: BenchmarkTable, name: String, image: Image, processor: some ImageProcessing,
    naiveSize: (Int, Int), repetitions: Int = 7
) throws {
    let measured = try medianSeconds(repetitions: repetitions) { blackHole(try processor.process(image)) }
    let naive = medianSeconds(repetitions: repetitions) {
        blackHole(naiveBoxResize(image, width: naiveSize.0, height: naiveSize.1))
    }
    table.add(
        name, unit: "ms", median: measured * 1e3,
        baseline: "naive box (area average), no crop", baselineMedian: naive * 1e3
    )
}

/// A deterministic photo-like image: gradients plus pseudo-random detail.
private func benchmarkPhoto(width: Int, height: Int) -> Image {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    var state: UInt32 = 2_463_534_242
    for y in 0..<height {
        for x in 0..<width {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let offset = (y * width + x) * 4
            pixels[offset] = UInt8((x * 255 / width + Int(state & 31)) % 256)
            pixels[offset + 1] = UInt8((y * 255 / height + Int(state >> 8 & 31)) % 256)
            pixels[offset + 2] = UInt8(((x + y) * 127 / (width + height) + Int(state >> 16 & 63)) % 256)
        }
    }
    return Image(width: width, height: height, pixels: pixels)
}

/// Each output pixel averages the source pixels whose centres fall in its footprint.
private func naiveBoxResize(_ image: Image, width: Int, height: Int) -> Image {
    var output = [UInt8](repeating: 0, count: width * height * 4)
    for outputY in 0..<height {
        let top = outputY * image.height / height
        let bottom = max(top + 1, (outputY + 1) * image.height / height)
        for outputX in 0..<width {
            let left = outputX * image.width / width
            let right = max(left + 1, (outputX + 1) * image.width / width)
            var sums = [Int](repeating: 0, count: 4)
            for y in top..<bottom {
                for x in left..<right {
                    for channel in 0..<4 { sums[channel] += Int(image.pixels[(y * image.width + x) * 4 + channel]) }
                }
            }
            let count = (bottom - top) * (right - left)
            for channel in 0..<4 { output[(outputY * width + outputX) * 4 + channel] = UInt8(sums[channel] / count) }
        }
    }
    return Image(width: width, height: height, pixels: output)
}

/// Circle mask and white ring by 4×4 supersampling of every pixel.
private func naiveCircleWithBorder(_ image: Image, borderWidth: Double) -> Image {
    var output = image.pixels
    let radius = Double(min(image.width, image.height)) / 2
    for y in 0..<image.height {
        for x in 0..<image.width {
            var inside = 0.0
            var ring = 0.0
            for sample in 0..<16 {
                let sampleX = Double(x) + (Double(sample % 4) + 0.5) / 4 - Double(image.width) / 2
                let sampleY = Double(y) + (Double(sample / 4) + 0.5) / 4 - Double(image.height) / 2
                let distance = (sampleX * sampleX + sampleY * sampleY).squareRoot()
                if distance <= radius - borderWidth { inside += 1 / 16 } else if distance <= radius { ring += 1 / 16 }
            }
            for channel in 0..<4 {
                let offset = (y * image.width + x) * 4 + channel
                output[offset] = UInt8((Double(output[offset]) * inside + 255 * ring).rounded())
            }
        }
    }
    return Image(width: image.width, height: image.height, pixels: output)
}
