import Foundation
import MediaAssetsAnimation
import MediaAssetsImage

/// Every fuzz target. A new parser's entry point (`fuzz<Name>(_ data: Data)` or its public API)
/// gets one entry here, a `Targets/<name>/Entry.swift` and its name in Package.swift.
public enum FuzzTargets {
    /// All targets, in the order `Fuzz/run` runs them.
    public static let all: [FuzzTarget] = [jpeg, png, lottie, dotLottie]

    /// The target named `name`, if any.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// A pixel limit that keeps one input's decode small (the limit check itself is under test).
    static let decodingOptions = ImageDecodingOptions(maxPixelCount: 1 << 22)

    /// libjpeg-turbo through `ImageDecoder`: header, full decode and a DCT-scaled decode.
    public static let jpeg = FuzzTarget(name: "jpeg", seeds: ImageSeeds.jpeg) { data in
        guard ImageFormat.sniff(data) == .jpeg else { return }
        decodeImage(data, scaledTo: PixelSize(width: 7, height: 5))
    }

    /// libpng through `ImageDecoder`: header and full decode.
    public static let png = FuzzTarget(name: "png", seeds: ImageSeeds.png) { data in
        guard ImageFormat.sniff(data) == .png else { return }
        decodeImage(data, scaledTo: nil)
    }

    /// The Lottie JSON parser and validator.
    public static let lottie = FuzzTarget(name: "lottie", seeds: AnimationSeeds.lottie) { data in
        _ = try? LottieAnimation.parse(data)
    }

    /// The zip reader, manifest parser and per-animation parsing of dotLottie archives.
    public static let dotLottie = FuzzTarget(name: "dotlottie", seeds: AnimationSeeds.dotLottie) { data in
        _ = try? DotLottie.read(data)
    }

    /// Reads the header, decodes, and decodes again scaled to `targetSize` (JPEG's DCT scaling) if given.
    static func decodeImage(_ data: Data, scaledTo targetSize: PixelSize?) {
        _ = try? ImageDecoder.header(of: data)
        _ = try? ImageDecoder.decode(data, options: decodingOptions)
        guard let targetSize else { return }
        var scaled = decodingOptions
        scaled.targetSize = targetSize
        _ = try? ImageDecoder.decode(data, options: scaled)
    }
}
