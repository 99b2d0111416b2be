import Foundation
import MediaAssets
import MediaAssetsAnimation

// README: "Quick start: AnimationUtil"
func quickStartAnimations(manager: AssetsManager) async throws {
    let animations = AnimationUtil(manager: manager)
    let url = URL(string: "https://example.com/confetti.json")!

    // Parsed and validated before anything is stored; the parsed model stays in memory.
    let confetti = try await animations.animation(for: url)  // storageType: .hybrid(.lottie)
    print(confetti.frameRate, confetti.duration, confetti.layers.count, confetti.markers.count)

    let again = try await animations.animation(for: url)  // a memory hit: no parsing
    let images = confetti.externalImageURLs(relativeTo: url)  // image assets, u + p resolved
    print(again == confetti, images, animations.statistics)  // parses 1, memory hits 1, ...
}
