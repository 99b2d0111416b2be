import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsAnimation
import MediaAssetsImage
import MediaAssetsVideo

/// Measures one util's part of the demo: time, origin requests and bytes downloaded.
final class DemoPhase: Sendable {
    let manager: AssetsManager
    let host: SampleHost
    let images: ImageUtil
    let animations: AnimationUtil
    let video: VideoUtil

    init(manager: AssetsManager, host: SampleHost) {
        self.manager = manager
        self.host = host
        images = ImageUtil(manager: manager)
        animations = AnimationUtil(manager: manager)
        video = VideoUtil(manager: manager)
    }

    /// Runs `body` and returns its result with the lines every util report has.
    func measure<Value>(_ body: () async throws -> Value) async rethrows -> (value: Value, lines: [(String, String)]) {
        let requests = host.requestCount
        let downloaded = manager.fetchStatistics.bytesDownloaded
        let (value, duration) = try await Formatting.timed(body)
        let lines = [
            (
                "origin",
                "\(host.requestCount - requests) requests, "
                    + "\(Formatting.bytes(manager.fetchStatistics.bytesDownloaded - downloaded)) downloaded"
            ),
            ("time", Formatting.duration(duration)),
        ]
        return (value, lines)
    }

    func utilStatistics() -> [(name: String, statistics: String)] {
        [
            ("ImageUtil", images.statistics.description),
            ("AnimationUtil", animations.statistics.description),
            ("VideoUtil", video.statistics.description),
        ]
    }

    /// Prints a util's block: a title, then aligned label and value lines.
    static func report(_ title: String, _ lines: [(String, String)]) {
        print(title)
        let width = lines.map(\.0.count).max() ?? 0
        for (label, value) in lines {
            print("  " + label + String(repeating: " ", count: width - label.count) + "  " + value)
        }
        print("")
    }
}
