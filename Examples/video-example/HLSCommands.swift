import Dispatch
import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin

/// `--proxy`: an HLS stream (or any video URL) through the caches on a loopback proxy.
enum HLSCommands {
    /// Where the stream comes from: an http(s) URL as given, a local file served by an embedded origin (so
    /// a stream or file ffmpeg wrote can be tried without a web server), or a generated stream.
    struct Source {
        let url: URL
        let origin: SampleOrigin?
        let description: String

        /// Cache keys that do not change with the embedded origin's port, so a second run finds the first
        /// run's cache and downloads.
        var keyFactory: CacheKeyFactory {
            guard let origin else { return .absoluteURL }
            let port = origin.port
            return CacheKeyFactory { url in
                guard url.host == "127.0.0.1", url.port == port else { return url.absoluteString }
                return "embedded-origin:" + url.path
            }
        }

        static func resolve(_ input: String?) throws -> Source {
            if let input, let url = URL(string: input), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                return Source(url: url, origin: nil, description: url.absoluteString)
            }
            let origin = SampleOrigin()
            if let input {
                let file = input.hasPrefix("file://") ? URL(string: input)! : URL(fileURLWithPath: input)
                try origin.registerDirectory(file.deletingLastPathComponent(), at: "/stream")
                try origin.start()
                let url = origin.url(for: "/stream/" + file.lastPathComponent)
                return Source(url: url, origin: origin, description: "\(file.path) served by an embedded origin")
            }
            let stream = origin.registerHLSStream(at: "/generated", segments: 8, segmentSize: 256 << 10)
            try origin.start()
            return Source(
                url: origin.url(for: stream.masterPath), origin: origin,
                description: "a generated HLS stream (synthetic bytes, not decodable video) on an embedded origin"
            )
        }
    }

    static func log(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((text + (newline ? "\n" : "")).utf8))
    }

    static func proxy(input: String?, cacheDirectory: URL) async throws {
        let source = try Source.resolve(input)
        defer { source.origin?.stop() }
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), keyFactory: source.keyFactory))
        let proxy = VideoProxy(video: VideoUtil(manager: manager), hls: HLSUtil(manager: manager))
        try proxy.start()
        defer { proxy.stop() }
        log("video-example: proxying \(source.description); stop with Ctrl-C or SIGTERM")
        print(proxy.proxyURL(for: source.url).absoluteString)
        ExampleRun.flushStandardOutput()  // a script reading a pipe sees the URL at once
        await waitForTermination()
        log("video-example: stopping after \(proxy.requestCount) proxy requests")
        await manager.shutdown()  // the chunks the proxy cached reach the disk before the process exits
    }

    /// Suspends until SIGINT or SIGTERM.
    private static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "video-example.signals")
            let resumed = ResumeOnce(continuation)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { resumed.resume() }
                source.resume()
                SignalSources.keep(source)
            }
        }
    }

}

/// Resumes a continuation the first time only (both signals may arrive).
private final class ResumeOnce: @unchecked Sendable {
    // Touched only on the signal queue, which is serial.
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func resume() {
        continuation?.resume()
        continuation = nil
    }
}

/// Keeps signal sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    static func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
}
