import Foundation

/// Limits that keep one fuzz input fast: 4 megapixels, 64 frames.
private let fuzzOptions = ImageDecodingOptions(
    maxPixelCount: 4_000_000, maxFrameCount: 64, maxAnimationPixelCount: 16_000_000
)

/// Feeds arbitrary bytes to the WebP decoder (header, still, animation); it must throw or return, never crash.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzWebPDecoder(_ data: Data) {
    fuzz(WebPDecoder(), data)
}

/// Feeds arbitrary bytes to the GIF decoder (header, first frame, every frame).
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzGIFDecoder(_ data: Data) {
    fuzz(GIFDecoder(), data)
}

/// Feeds arbitrary bytes to the HEIC/AVIF decoder (header, primary image).
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzHEIFDecoder(_ data: Data) {
    fuzz(HEIFDecoder(), data)
}

/// Feeds arbitrary bytes to whichever standard decoder their magic bytes choose.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzImageCodecRegistry(_ data: Data) {
    _ = try? ImageCodecRegistry.standard.header(of: data)
    _ = try? ImageCodecRegistry.standard.decodeAnimation(data, options: fuzzOptions)
}

/// Feeds arbitrary bytes to the ThumbHash reader and renderer.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzThumbHash(_ data: Data) {
    _ = try? ImagePlaceholder(thumbHash: data).image()
}

private func fuzz(_ decoder: some ImageDecoding, _ data: Data) {
    _ = try? decoder.header(of: data)
    _ = try? decoder.decode(data, options: fuzzOptions)
    _ = try? decoder.decodeAnimation(data, options: fuzzOptions)
}

/// Reads an animation frame by frame as `ImageUtil.animationFrames` does (in order, then back by index), at a
/// small target size under `options`' limits.
@_spi(Fuzzing) public func fuzzAnimationFrameReader(_ data: Data, options: ImageDecodingOptions) {
    guard let reader = try? AnimationFrameReader(data: data, options: options) else { return }
    var read = 0
    while read < 24, (try? reader.nextFrame()) != nil { read += 1 }
    for index in stride(from: min(read, reader.info.frameCount) - 1, through: 0, by: -3) {
        _ = try? reader.frame(at: index)
    }
}

/// Seeds for the image fuzz targets that the public encoder does not write: PNG at a zlib level, and an
/// animated WebP.
@_spi(Fuzzing) public enum FuzzSeedEncoding {
    /// PNG bytes of `image` at zlib `level`.
    @_spi(Fuzzing) public static func png(_ image: Image, level: Int) throws -> Data {
        try ImageEncoder.png(image, compressionLevel: level)
    }

    /// A lossless animated WebP of `animation`.
    @_spi(Fuzzing) public static func animatedWebP(_ animation: AnimatedImage) throws -> Data {
        try WebPEncoder(compression: .lossless).encode(animation)
    }
}
