import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsVideo

/// A video stream by ranges with a seek, through VideoUtil's 1 MiB chunks on disk.
enum DemoVideo {
    static func run(phase: DemoPhase, media: SampleMedia) async throws {
        guard let file = media.video else { return }
        let video = phase.video
        let url = phase.host.url(for: file.path)
        let mebibyte = 1 << 20
        let ranges = [0..<(8 * mebibyte), (16 * mebibyte)..<(24 * mebibyte)]
        let before = video.statistics
        let bar = ProgressBar(label: "  streaming", total: ranges.reduce(0) { $0 + $1.count })
        let (served, lines) = try await phase.measure { () async throws -> (bytes: Int, matches: Bool) in
            var served = 0
            var matches = true
            for range in ranges {
                var offset = range.lowerBound
                for try await piece in video.stream(for: url, range: range) {
                    if piece != file.data[offset..<(offset + piece.count)] { matches = false }
                    offset += piece.count
                    bar.advance(by: piece.count)
                }
                served += offset - range.lowerBound
            }
            return (served, matches)
        }
        bar.finish()
        let after = video.statistics
        DemoPhase.report(
            "Video  (VideoUtil, 1 MiB chunks in .disk)",
            [
                (
                    "asked",
                    "\(Formatting.bytes(file.data.count)) synthetic byte stream (not a real video): "
                        + "play 0-8 MiB, seek to 16 MiB, play to 24 MiB"
                ),
                (
                    "from",
                    "network \(Formatting.bytes(after.bytesFetched - before.bytesFetched)) in "
                        + "\(after.rangeRequests - before.rangeRequests) range requests, "
                        + "cache \(Formatting.bytes(after.bytesServedFromCache - before.bytesServedFromCache))"
                ),
                (
                    "served",
                    "\(Formatting.bytes(served.bytes)), "
                        + (served.matches ? "every byte as the origin has it" : "MISMATCH")
                ),
            ] + lines)
    }
}
