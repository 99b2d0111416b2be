import Foundation
import MediaAssets
import MediaAssetsAnimation

// README: "Quick start: AnimationUtil"
func quickStartAnimations(manager: AssetsManager) async throws {
    let animations = AnimationUtil(manager: manager)
    let url = URL(string: "https://example.com/confetti.json")!

    // Parsed and validated before anything is stored; the parsed model stays in memory.
    let confetti = try await animations.animation(for: url)  // storageType: .hybrid(.lottie)
    print(confetti.frameRate, confetti.duration, confetti.layerCount, confetti.markers.count)

    let again = try await animations.animation(for: url)  // a memory hit: no parsing
    let images = confetti.externalImageURLs(relativeTo: url)  // image assets, u + p resolved
    print(again == confetti, images, animations.statistics)  // parses 1, memory hits 1, ...
}

// README: "Quick start: AnimationUtil" (image assets and export)
func quickStartAnimationAssets(animations: AnimationUtil, url: URL) async throws {
    // Every image asset fetched through ImageUtil (shared images fetched and decoded once) or decoded from
    // its data URL; kept in .lru(.lottie) as one entry charged the model and its bitmaps.
    let loaded = try await animations.loadedAnimation(for: url)
    print(loaded.images.map { "\($0.assetID) \($0.image.width)×\($0.image.height)" }, loaded.estimatedMemoryCost)

    // A self-contained .lottie: the animation with every image inlined.
    let archive = try await animations.exportDotLottie(for: url)
    try archive.write(to: URL(fileURLWithPath: "confetti.lottie"))
}
