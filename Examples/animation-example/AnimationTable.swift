import ExampleSupport
import Foundation
import MediaAssetsAnimation

/// One table row per load: where the animation came from, the parses it cost and the time.
struct AnimationTable {
    private var table = TextTable(header: ["animation", "from", "parses", "time", "layers", "markers", "duration"])

    mutating func load(_ url: URL, with animations: AnimationUtil) async throws {
        let before = animations.statistics
        let (animation, duration) = try await Formatting.timed { try await animations.animation(for: url) }
        let after = animations.statistics
        let source: String
        if after.networkFetches > before.networkFetches {
            source = "network"
        } else if after.storageHits > before.storageHits {
            source = "disk"
        } else {
            source = "memory"
        }
        table.add([
            url.lastPathComponent, source, String(after.decodes - before.decodes), Formatting.duration(duration),
            String(animation.layerCount), String(animation.markers.count),
            String(format: "%.2f s", animation.duration),
        ])
    }

    func print() { table.print() }
}
