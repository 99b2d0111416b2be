import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsVideo

/// The run with a URL: the bytes of a range written to a file.
enum RangeRead {
    static func run(input: String, rangeText: String?, cacheDirectory: URL, output: URL) async throws {
        let url = try ExampleInput.url(for: input)
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), loader: LocalFileLoader()))
        let video = VideoUtil(manager: manager)
        let info = try await video.contentInfo(for: url)
        let range = try rangeText.map { try ByteRangeArgument.parse($0, length: info.length) } ?? 0..<info.length

        try ExampleDirectories.write(Data(), to: output)
        let handle = try FileHandle(forWritingTo: output)
        let bar = ProgressBar(label: "  reading", total: range.count)
        let (written, duration) = try await Formatting.timed { () async throws -> Int in
            var written = 0
            do {
                for try await piece in video.stream(for: url, range: range) {
                    try handle.write(contentsOf: piece)
                    written += piece.count
                    bar.advance(by: piece.count)
                }
                try handle.close()
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: output)
                throw error
            }
            return written
        }
        bar.finish()
        let statistics = video.statistics
        print("video-example")
        print("  input         \(url.absoluteString)")
        print("  resource      \(info.length) bytes, \(info.contentType ?? "no content type")")
        print("  range         \(range.lowerBound)-\(range.upperBound - 1) (\(Formatting.bytes(range.count)))")
        print("  output        \(output.path): \(written) bytes in \(Formatting.duration(duration))")
        print("  from cache    \(Formatting.bytes(statistics.bytesServedFromCache))")
        print("  from origin   \(Formatting.bytes(statistics.bytesFetched)) in \(statistics.rangeRequests) requests")
        print("  cache         \(cacheDirectory.path)")
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager, utils: [("VideoUtil", video.statistics.description)])
    }
}
