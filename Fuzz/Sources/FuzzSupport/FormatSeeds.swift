import Foundation
@_spi(Fuzzing) import MediaAssetsImage

/// Seeds for the run-time codecs (WebP, GIF, HEIF) and ThumbHash: WebP and ThumbHash made by the package's
/// own encoders, GIF, HEIC and AVIF the small sample files the codec tests decode (libgif and libheif ship
/// no encoder the package loads).
enum FormatSeeds {
    /// The codec tests' sample files (`Tests/MediaAssetsImageTests/Codecs/Samples/`).
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Tests/MediaAssetsImageTests/Codecs/Samples", isDirectory: true)

    static func webp() -> [String: Data] {
        var seeds = samples(endingIn: ".webp")
        let image = ImageSeeds.pattern(width: 9, height: 7, opaque: false)
        seeds["seed-9x7-lossy.webp"] = try? ImageEncoder.webp(quality: 60).encode(image)
        seeds["seed-9x7-lossless.webp"] = try? ImageEncoder.webp(quality: nil).encode(image)
        return seeds
    }

    static func gif() -> [String: Data] { samples(endingIn: ".gif") }

    /// The GIF and WebP samples, and an animated WebP of three 9×7 frames made by the package's encoder.
    static func animation() -> [String: Data] {
        var seeds = gif().merging(webp()) { a, _ in a }
        let frames = (0..<3).map { index in
            AnimatedImage.Frame(
                image: ImageSeeds.pattern(width: 9, height: 7, opaque: index != 1), duration: .milliseconds(40)
            )
        }
        seeds["seed-3-frames.webp"] = try? FuzzSeedEncoding.animatedWebP(AnimatedImage(frames: frames, loopCount: 2))
        return seeds
    }

    static func heif() -> [String: Data] {
        samples(endingIn: ".heic").merging(samples(endingIn: ".avif")) { a, _ in a }
    }

    static func thumbHash() -> [String: Data] {
        var seeds: [String: Data] = [:]
        for (width, height, opaque) in [(16, 16, true), (40, 9, false), (3, 30, true)] {
            let image = ImageSeeds.pattern(width: width, height: height, opaque: opaque)
            seeds["seed-\(width)x\(height).thumbhash"] = try? ImagePlaceholder(image: image).thumbHash
        }
        return seeds
    }

    /// The sample files whose names end in `suffix`, by name.
    static func samples(endingIn suffix: String) -> [String: Data] {
        let files = (try? FileManager.default.contentsOfDirectory(at: samples, includingPropertiesForKeys: nil)) ?? []
        var seeds: [String: Data] = [:]
        for file in files where file.lastPathComponent.hasSuffix(suffix) {
            seeds[file.lastPathComponent] = try? Data(contentsOf: file)
        }
        return seeds
    }
}
