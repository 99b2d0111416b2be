import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation
import MediaAssetsImage
import MediaAssetsVideo

/// The README's first command: every util through one manager, reported per util.
enum Demo {
    static let videoByteCount = 24 << 20

    static func run(cacheDirectory: URL, outputDirectory: URL) async throws {
        let (media, generation) = try await Formatting.timed {
            try await SampleMedia.make(avatarCount: 40, videoByteCount: videoByteCount)
        }
        let host = try SampleHost.start(media)
        defer { host.stop() }
        // One manager with the default backends: memory partitions per media type and a disk
        // cache, here in a directory kept between runs. Keys leave out the origin's port, which
        // changes every run.
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), keyFactory: host.keyFactory)
        )
        let cachedAtStart = await manager.statistics()[.disk] ?? CacheStatistics()

        print("demo: images, a Lottie animation and a video through one AssetsManager")
        print(
            "  origin  \(host.origin.baseURL.absoluteString)  "
                + "(embedded SampleOrigin, started anew each run, no network)")
        print("  cache   \(cacheDirectory.path)  (DiskCache, kept between runs)")
        if cachedAtStart.count == 0 {
            print("          empty: this run downloads everything; run the demo again to see it served from disk")
        } else {
            print(
                "          holds \(cachedAtStart.count) entries (\(Formatting.bytes(cachedAtStart.bytes))) "
                    + "from an earlier run: none of it is downloaded again")
        }
        print("  output  \(outputDirectory.path)")
        print(
            "  media   \(media.avatars.count) portraits, \(media.animations.count) animations, "
                + "a \(Formatting.bytes(videoByteCount)) byte stream, generated in \(Formatting.duration(generation))")
        print("")

        let phase = DemoPhase(manager: manager, host: host)
        let styled = try await DemoImages.run(phase: phase, media: media)
        try await DemoAnimations.run(phase: phase, media: media)
        try await DemoVideo.run(phase: phase, media: media)

        print("Summary")
        print("  origin requests  \(host.requestCount)  (a new origin each run: whatever is cached costs no request)")
        print("  downloaded       \(Formatting.bytes(manager.fetchStatistics.bytesDownloaded))")
        print("")
        try DemoOutput.write(styled, to: outputDirectory)
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager, utils: phase.utilStatistics())
    }
}
