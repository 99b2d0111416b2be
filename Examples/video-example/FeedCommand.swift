import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--feed DIR_OR_URLS`: a short-video feed played one item after another through the proxy, swiping every few
/// seconds, with a `VideoPreloader` readying the next items (and their posters) through the same cache.
enum FeedCommand {
    static func run(feed: String, swipeSeconds: Double, cacheDirectory: URL) async throws {
        var origin: SampleOrigin?
        defer { origin?.stop() }
        let urls: [URL]
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: feed, isDirectory: &isDirectory), isDirectory.boolValue {
            let served = SampleOrigin()
            let paths = try served.registerDirectory(URL(fileURLWithPath: feed), at: "/feed")
                .filter { path in
                    [".mp4", ".mov", ".m4v", ".webm", ".mkv"].contains { path.lowercased().hasSuffix($0) }
                }
                .sorted()
            try served.start()
            origin = served
            urls = paths.map { served.url(for: $0) }
        } else {
            urls = feed.split(separator: ",").compactMap { URL(string: String($0)) }
        }
        guard !urls.isEmpty else { throw ExampleError.usage(reason: "--feed found no videos in '\(feed)'") }
        let manager = try AssetsManager(configuration: .init(disk: .init(directory: cacheDirectory)))
        let video = VideoUtil(manager: manager)
        let proxy = VideoProxy(video: video)
        try proxy.start()
        defer { proxy.stop() }
        let preloader = VideoPreloader(
            video: video,
            configuration: .init(
                posterPosition: .fraction(0.1), posterStyle: .resize(size: PixelSize(width: 320, height: 320))))
        defer { preloader.stop() }
        let updates = Task {
            for await update in preloader.updates() {
                if case .ready(let bytes) = update.state {
                    log("  preloaded item \(update.index + 1): \(bytes / 1024) KiB and its poster")
                } else if case .failed(let reason) = update.state {
                    log("  item \(update.index + 1) could not be preloaded: \(reason)")
                }
            }
        }
        defer { updates.cancel() }
        log("video-example: a feed of \(urls.count) videos, a swipe every \(swipeSeconds) s, through \(proxy.baseURL)")
        preloader.setItems(urls.map { AssetRequest(url: $0) })
        for (index, url) in urls.enumerated() {
            preloader.setCurrentIndex(index)
            let (firstByte, bytes) = try await play(proxy.proxyURL(for: url), for: swipeSeconds)
            let shown = firstByte.map { String(format: "%.1f ms", $0 * 1e3) } ?? "none"
            print("item \(index + 1): first byte after \(shown), \(bytes / 1024) KiB played")
            ExampleRun.flushStandardOutput()
        }
        let originBytes =
            origin.map { origin in urls.map { origin.requests(for: $0.path) }.joined().map(\.bodyBytesSent).reduce(0, +)
            }
            ?? video.statistics.bytesFetched
        print("origin bytes: \(originBytes / 1024) KiB; \(video.statistics)")
        await manager.shutdown()
    }

    /// Reads `url` as a player does, from the start, for `seconds`: when its first byte came and how many came.
    private static func play(_ url: URL, for seconds: Double) async throws -> (firstByte: Double?, bytes: Int) {
        let reader = StreamReader()
        let session = URLSession(configuration: .ephemeral, delegate: reader, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url)
        reader.start = Date()
        task.resume()
        try await Task.sleep(for: .seconds(seconds))
        task.cancel()
        return reader.outcome
    }

    private static func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Counts a response's bytes as they arrive and notes when the first came.
private final class StreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched on the session's serial delegate queue, read once the task is cancelled.
    private let lock = NSLock()
    var start = Date()
    private var first: Double?
    private var bytes = 0

    var outcome: (firstByte: Double?, bytes: Int) { lock.withLock { (first, bytes) } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            if first == nil { first = Date().timeIntervalSince(start) }
            bytes += data.count
        }
    }
}
