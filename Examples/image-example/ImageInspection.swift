import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage

/// The run with an input: one image fetched, decoded, styled and written as PNG.
enum ImageInspection {
    static func run(input: String, style: AvatarStyle, cacheDirectory: URL, output: URL) async throws {
        let url = try ExampleInput.url(for: input)
        let manager = try AssetsManager(configuration: .init(diskDirectory: cacheDirectory, loader: LocalFileLoader()))
        let images = ImageUtil(manager: manager)
        let (image, duration) = try await Formatting.timed { try await images.image(for: url, style: style) }
        try ExampleDirectories.write(try ImageEncoder.png(image), to: output)
        let fetches = manager.fetchStatistics
        print("image-example")
        print("  input   \(url.absoluteString)")
        print("  style   \(style.identifier)")
        print("  image   \(image.width)x\(image.height)\(image.hasTransparency ? ", with transparency" : "")")
        print("  time    \(Formatting.duration(duration))")
        print("  bytes   \(Formatting.bytes(fetches.bytesDownloaded)) loaded, "
            + "\(Formatting.bytes(fetches.bytesServedFromCache)) from cache")
        print("  output  \(output.path)")
        print("  cache   \(cacheDirectory.path)")
        print("")
        await StatisticsReport.print(manager: manager, utils: [("ImageUtil", images.statistics.description)])
    }
}
