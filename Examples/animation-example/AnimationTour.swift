import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

/// The run without inputs: the sample animations loaded cold, warm, after a memory trim, and a
/// download that fails validation.
enum AnimationTour {
    static func run(cacheDirectory: URL) async throws {
        let media = try await SampleMedia.make(avatarCount: 1, videoByteCount: 0)
        let host = try SampleHost.start(media)
        defer { host.stop() }
        // Files are read by the example's loader; http(s) goes to URLSession.
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: cacheDirectory), loader: LocalFileLoader(), keyFactory: host.keyFactory)
        )
        let animations = AnimationUtil(manager: manager)
        let urls = media.animations.map { host.url(for: $0.path) }

        print("animation-example: Lottie animations through AnimationUtil (storage .hybrid(.lottie))")
        print("  origin  \(host.origin.baseURL.absoluteString)  (embedded SampleOrigin, generated media, no network)")
        print("  cache   \(cacheDirectory.path)")
        print("")

        print("Pass 1: cold cache")
        var table = AnimationTable()
        for url in urls { try await table.load(url, with: animations) }
        table.print()
        try await loadImageAssets(of: urls, animations: animations, manager: manager)
        let afterFirstPass = (animations.statistics, host.requestCount)

        print("")
        print("Pass 2: the same animations again")
        table = AnimationTable()
        for url in urls { try await table.load(url, with: animations) }
        table.print()
        let parsesInPass2 = animations.statistics.decodes - afterFirstPass.0.decodes
        let requestsInPass2 = host.requestCount - afterFirstPass.1
        print("  -> \(parsesInPass2) parses and \(requestsInPass2) origin requests: served parsed from memory")

        print("")
        print("Pass 3: after manager.trimMemory() (memory emptied, disk kept)")
        await manager.trimMemory()
        table = AnimationTable()
        for url in urls { try await table.load(url, with: animations) }
        table.print()
        print("  -> bytes read from disk and parsed once more; no download")

        print("")
        try await showDotLottie(host: host, animations: animations)
        print("")
        try await showRejection(host: host, animations: animations, manager: manager)
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager, utils: [("AnimationUtil", animations.statistics.description)])
    }

    /// Loads each animation with its image assets (`u` + `p` fetched and decoded through ImageUtil).
    private static func loadImageAssets(
        of urls: [URL], animations: AnimationUtil, manager: AssetsManager
    ) async throws {
        for url in urls {
            let loaded = try await animations.loadedAnimation(for: url)
            for asset in loaded.images {
                print(
                    "  image asset \(asset.assetID) of \(url.lastPathComponent): \(asset.origin), "
                        + "\(asset.image.width)×\(asset.image.height) decoded "
                        + "(\(Formatting.bytes(asset.image.cost))), cached in .hybrid(.image)"
                )
            }
            print(
                "  \(url.lastPathComponent) with its assets: \(Formatting.bytes(loaded.estimatedMemoryCost)) "
                    + "charged to .lru(.lottie)"
            )
        }
    }

    /// Loads the sample dotLottie archive twice: read and parsed once, then from memory.
    private static func showDotLottie(host: SampleHost, animations: AnimationUtil) async throws {
        let url = host.url(for: host.media.dotLottie.path)
        print("A dotLottie archive: \(url.lastPathComponent) (\(Formatting.bytes(host.media.dotLottie.data.count)))")
        for attempt in ["first", "second"] {
            let before = animations.statistics
            let (archive, duration) = try await Formatting.timed { try await animations.dotLottie(for: url) }
            let parses = animations.statistics.decodes - before.decodes
            let ids = archive.animations.map(\.id).joined(separator: ", ")
            print(
                "  \(attempt.padding(toLength: 7, withPad: " ", startingAt: 0))animations \(ids), "
                    + "images \(archive.images.count), parses \(parses), \(Formatting.duration(duration))")
        }
    }

    /// Loads the invalid sample and shows that its bytes were not cached.
    private static func showRejection(
        host: SampleHost, animations: AnimationUtil, manager: AssetsManager
    ) async throws {
        let url = host.url(for: host.media.brokenAnimation.path)
        print("An invalid download: \(url.lastPathComponent)")
        do {
            _ = try await animations.animation(for: url)
            print("  unexpectedly parsed")
        } catch let error as AnimationUtilError {
            print("  refused: \(error)")
        }
        let key = manager.cacheKey(for: AssetRequest(url: url))
        let stored = try await manager.readData(forKey: key, storageType: .disk)
        print("  on disk under \(key): \(stored == nil ? "nothing (never stored)" : "\(stored?.count ?? 0) bytes")")
    }
}
