import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation

/// The animations with their image asset, loaded twice through AnimationUtil.
enum DemoAnimations {
    static func run(phase: DemoPhase, media: SampleMedia) async throws {
        let animations = phase.animations
        let urls = media.animations.map { phase.host.url(for: $0.path) }
        let before = animations.statistics
        let (served, lines) = try await phase.measure { () async throws -> (json: Int, assets: Int) in
            var json = 0
            var assets = 0
            for _ in 1...2 {
                for url in urls {
                    let animation = try await animations.animation(for: url)
                    json += animation.data.count
                    for imageURL in animation.externalImageURLs(relativeTo: url) {
                        let request = AssetRequest(url: imageURL)
                        assets += try await phase.manager.entry(for: request, storageType: .hybrid(.image)).data.count
                    }
                }
            }
            return (json, assets)
        }
        let after = animations.statistics
        let names = urls.map(\.lastPathComponent).joined(separator: ", ")
        DemoPhase.report(
            "Animation  (AnimationUtil, .hybrid(.lottie))",
            [
                ("asked", "\(names), twice each, and the image asset confetti.json names (images/badge.png)"),
                (
                    "from",
                    "network \(after.networkFetches - before.networkFetches), "
                        + "disk \(after.storageHits - before.storageHits), "
                        + "memory \(after.memoryHits - before.memoryHits)  "
                        + "(parses \(after.decodes - before.decodes))"
                ),
                (
                    "served",
                    "\(Formatting.bytes(served.json)) of parsed JSON, "
                        + "\(Formatting.bytes(served.assets)) of image asset"
                ),
            ] + lines)
    }
}
