import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

/// The run with inputs: one JSON line per animation (assets included) on standard output; progress,
/// errors and statistics on standard error.
enum AnimationInspection {
    /// Returns the exit status: 1 if any input failed.
    static func run(inputs: [String], cacheDirectory: URL, exportPath: String?) async throws -> Int32 {
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), loader: LocalFileLoader()))
        let animations = AnimationUtil(manager: manager)
        if exportPath != nil, inputs.count != 1 || inputs[0].lowercased().hasSuffix(".lottie") {
            throw ExampleError.usage(reason: "--export takes exactly one Lottie JSON input")
        }
        var failed = false
        for input in inputs {
            do {
                let url = try ExampleInput.url(for: input)
                StandardError.print("loading \(input)")
                if url.pathExtension.lowercased() == "lottie" {
                    let archive = try await animations.dotLottie(for: url)
                    for entry in archive.animations {
                        let inlined = try archive.inlinedAnimation(withID: entry.id) ?? entry.animation
                        let loaded = try await animations.loadAssets(of: inlined, relativeTo: url)
                        let sizes = await encodedSizes(of: loaded, manager: manager)
                        print(AnimationJSONLine.make(input: input, id: entry.id, loaded, encodedSizes: sizes))
                    }
                } else {
                    let loaded = try await animations.loadedAnimation(for: url)
                    let sizes = await encodedSizes(of: loaded, manager: manager)
                    print(AnimationJSONLine.make(input: input, id: nil, loaded, encodedSizes: sizes))
                    for asset in loaded.images {
                        let size = sizes[asset.assetID].map { Formatting.bytes($0) } ?? "unknown size"
                        StandardError.print("  asset \(asset.assetID): \(asset.origin), \(size)")
                    }
                    if let exportPath { try await export(url, to: exportPath, animations: animations) }
                }
            } catch {
                failed = true
                ExampleRun.flushStandardOutput()
                ExampleRun.printError(error, program: "animation-example: \(input)")
            }
        }
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        ExampleRun.flushStandardOutput()
        StandardError.print("")
        StandardError.print("cache  \(cacheDirectory.path)")
        await StandardError.redirectingStandardOutput {
            await StatisticsReport.print(
                manager: manager,
                utils: [
                    ("AnimationUtil", animations.statistics.description),
                    ("ImageUtil (assets)", animations.images.statistics.description),
                ])
        }
        return failed ? 1 : 0
    }

    /// The size of each asset's bytes: the cached file of an external image, the decoded data URL of an
    /// embedded one (placeholders have none).
    private static func encodedSizes(of loaded: LoadedAnimation, manager: AssetsManager) async -> [String: Int] {
        var sizes: [String: Int] = [:]
        for asset in loaded.animation.imageAssets {
            if let data = asset.embeddedData() { sizes[asset.id] = data.count }
        }
        for asset in loaded.images {
            guard let url = asset.url else { continue }
            let entry = try? await manager.entry(
                for: AssetRequest(url: url, cachePolicy: .cacheOnly), storageType: .hybrid(.image))
            sizes[asset.assetID] = entry?.data.count
        }
        return sizes
    }

    /// Writes the self-contained archive of `url` to `path`.
    private static func export(_ url: URL, to path: String, animations: AnimationUtil) async throws {
        let archive = try await animations.exportDotLottie(for: url)
        try archive.write(to: URL(fileURLWithPath: path))
        StandardError.print("exported \(path) (\(Formatting.bytes(archive.count)), images inlined)")
    }
}
