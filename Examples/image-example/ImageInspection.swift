import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage

/// The run with an input: one image fetched, decoded, styled and written as PNG or WebP; with `--frames`, every
/// frame of an animation written as PNG, one frame in memory at a time. The summary comes from the headers.
enum ImageInspection {
    /// The encoding of the styled output.
    enum OutputFormat: String {
        case png
        case webp

        static func parse(_ value: String?) throws -> OutputFormat {
            guard let value else { return .png }
            guard let format = OutputFormat(rawValue: value.lowercased()) else {
                throw ExampleError.usage(reason: "--format is png or webp, got \(value)")
            }
            return format
        }

        func encode(_ image: Image) throws -> Data {
            switch self {
            case .png: return try ImageEncoder.png.encode(image)
            case .webp: return try ImageEncoder.webp(quality: 80).encode(image)
            }
        }
    }

    static func run(
        input: String, style: AvatarStyle, format: OutputFormat, cacheDirectory: URL, output: URL,
        framesDirectory: URL?
    ) async throws {
        let url = try ExampleInput.url(for: input)
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), loader: LocalFileLoader()))
        let images = ImageUtil(manager: manager)
        let (image, duration) = try await Formatting.timed { try await images.image(for: url, style: style) }
        let encoded = try format.encode(image)
        try ExampleDirectories.write(encoded, to: output)
        // The original's bytes are cached by now: the summary reads only their headers (a GIF's blocks are
        // walked without decompressing a pixel), and frames are decoded only when asked for.
        let original = try await manager.entry(for: AssetRequest(url: url), storageType: .hybrid(.image)).data
        let header = try ImageCodecRegistry.standard.header(of: original)
        let animation = try ImageCodecRegistry.standard.animationInfo(of: original)
        if let framesDirectory {
            let frames = try ImageCodecRegistry.standard.decodeAnimation(original).frames
            for (index, frame) in frames.enumerated() {
                let name = "frame-" + String(index + 1).leftPadded(to: 3) + ".png"
                try ExampleDirectories.write(
                    try ImageEncoder.png.encode(frame.image), to: framesDirectory.appendingPathComponent(name)
                )
            }
        }
        let fetches = manager.fetchStatistics
        print("image-example")
        print("  input   \(url.absoluteString)")
        print(
            "  format  \(header.format) \(header.width)x\(header.height)"
                + (animation.isAnimated ? ", \(animation.frameCount) frames, loop \(animation.loopCount)" : ""))
        print("  style   \(style.identifier)")
        print("  image   \(image.width)x\(image.height)\(image.hasTransparency ? ", with transparency" : "")")
        print("  time    \(Formatting.duration(duration))")
        print(
            "  bytes   \(Formatting.bytes(fetches.bytesDownloaded)) loaded, "
                + "\(Formatting.bytes(fetches.bytesServedFromCache)) from cache")
        print("  output  \(output.path) (\(format.rawValue), \(Formatting.bytes(encoded.count)))")
        if let framesDirectory { print("  frames  \(animation.frameCount) written to \(framesDirectory.path)") }
        print("  cache   \(cacheDirectory.path)")
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager, utils: [("ImageUtil", images.statistics.description)])
    }
}

extension String {
    /// This string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
