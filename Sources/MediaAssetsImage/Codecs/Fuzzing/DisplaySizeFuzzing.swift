import Foundation

/// Feeds arbitrary bytes to every decoder's display-size path through the standard registry: a small target
/// with a centred and an off-centre region, and a region alone (PNG row by row, WebP scaled and cropped by
/// libwebp, HEIC and AVIF from a thumbnail or reduced from the decoded plane, scan-limited progressive JPEG).
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzDisplaySizeDecoding(_ data: Data) {
    let requests: [(PixelSize?, ImageRegion?)] = [
        (PixelSize(width: 7, height: 5), .centered(aspectRatio: .square(1))),
        (PixelSize(width: 3, height: 9), .relative(x: 0.6, y: 0.1, width: 0.3, height: 0.5)),
        (nil, .relative(x: 0.25, y: 0.25, width: 0.5, height: 0.5)),
    ]
    for (targetSize, region) in requests {
        let options = ImageDecodingOptions(
            maxPixelCount: 4_000_000, targetSize: targetSize, maxFrameCount: 64, maxAnimationPixelCount: 16_000_000,
            regionOfInterest: region
        )
        _ = try? ImageCodecRegistry.standard.decode(data, options: options)
    }
}

/// Feeds arbitrary bytes to the progressive JPEG preview decoder in pieces whose sizes come from the input's
/// first bytes, then renders the final image; it must throw or return, never crash, and hold only what libjpeg
/// has not consumed.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzJPEGIncrementalDecoder(_ data: Data) {
    let options = ImageDecodingOptions(
        maxPixelCount: 4_000_000, targetSize: PixelSize(width: 9, height: 7),
        regionOfInterest: .centered(aspectRatio: .square(1))
    )
    guard let decoder = try? JPEGIncrementalDecoder(options: options) else { return }
    let sizes = data.prefix(4).map { Int($0) % 97 + 1 }
    var offset = data.startIndex
    var piece = 0
    while offset < data.endIndex {
        let size = sizes.isEmpty ? data.count : sizes[piece % sizes.count]
        let end = data.index(offset, offsetBy: min(size, data.endIndex - offset))
        guard (try? decoder.append(data[offset..<end])) != nil else { return }
        offset = end
        piece += 1
    }
    _ = try? decoder.decodeFinalImage()
}
