import Dispatch
import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization

/// A loopback HTTP server that lets any player (ffplay, mpv, VLC, AVPlayer) play through the caches.
///
/// `proxyURL(for:)` turns an origin URL into `http://127.0.0.1:<port>/…`. A progressive file is served
/// by `Range` from `VideoUtil`'s chunk cache; an HLS playlist is fetched through `HLSUtil` and
/// rewritten so every variant, rendition, segment, init section and key is a proxy URL again; those
/// are served from `HLSUtil`'s cache. A second play therefore makes no origin request.
///
/// It runs on the HTTP/1.1 core of `SampleOrigin` (one server core in the package): it binds
/// 127.0.0.1 only, bounds connections and request-head sizes, answers malformed requests with 4xx
/// and stops cleanly.
///
/// ```swift
/// let proxy = VideoProxy(video: VideoUtil(manager: manager), hls: HLSUtil(manager: manager))
/// try proxy.start()
/// player.play(proxy.proxyURL(for: streamURL))
/// ```
public final class VideoProxy: Sendable {
    /// The util progressive files are read through.
    public let video: VideoUtil
    /// The util playlists and segments are read through.
    public let hls: HLSUtil
    /// The server core; its request log shows what players asked for.
    public let server = SampleOrigin()
    /// The answers being worked out, so `stop()` can cancel them instead of waiting for their fetches.
    private let answers = Mutex(Answers())

    private struct Answers {
        var tasks: Set<Task<Void, Never>> = []
        var isStopping = false
    }

    /// Creates a stopped proxy over `video` and `hls`; at most `maximumConnections` are served at once.
    public init(video: VideoUtil, hls: HLSUtil, maximumConnections: Int = 64) {
        self.video = video
        self.hls = hls
        server.maximumConnections = maximumConnections
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts serving.
    ///
    /// - Throws: `SampleOriginError` with the system's reason.
    public func start() throws {
        server.setHandler { [self] request in respondBlocking(to: request) }
        try server.start()
    }

    /// Stops serving: cancels the answers under way (their origin fetches with them), closes every
    /// connection and joins every thread.
    public func stop() {
        let running = answers.withLock { answers in
            answers.isStopping = true
            return answers.tasks
        }
        for task in running { task.cancel() }
        server.stop()
        answers.withLock { $0.isStopping = false }
    }

    /// The listening port, or 0 while stopped.
    public var port: Int { server.port }

    /// The proxy URL standing for `url`: a playlist when its path ends in `.m3u8`, else a progressive file.
    public func proxyURL(for url: URL) -> URL {
        let kind: ProxyTarget.Kind = url.pathExtension.lowercased() == "m3u8" ? .playlist : .progressive
        return proxyURL(ProxyTarget(kind: kind, origin: url))
    }

    func proxyURL(_ target: ProxyTarget) -> URL {
        URL(string: server.baseURL.absoluteString + target.path) ?? server.baseURL
    }

    /// Runs the async answer on the connection's own thread (each connection has one; blocking it is fine).
    /// The answer's task is registered for `stop()`, which cancels it; one started while stopping is
    /// cancelled at once.
    private func respondBlocking(to request: SampleOrigin.HandledRequest) -> SampleOrigin.HandledResponse {
        let result = Mutex<SampleOrigin.HandledResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let response = await respond(to: request)
            result.withLock { $0 = response }
            done.signal()
        }
        let isStopping = answers.withLock { answers in
            answers.tasks.insert(task)
            return answers.isStopping
        }
        if isStopping { task.cancel() }
        done.wait()
        answers.withLock { _ = $0.tasks.remove(task) }
        return result.withLock { $0 } ?? .text(status: 500, "no response")
    }

    func respond(to request: SampleOrigin.HandledRequest) async -> SampleOrigin.HandledResponse {
        guard let target = ProxyTarget(path: request.path) else {
            return .text(status: 400, "not a proxy URL: \(request.path.prefix(200))")
        }
        do {
            switch target.kind {
            case .progressive: return try await progressive(target.origin, request: request)
            case .playlist: return try await playlist(target.origin)
            case .resource:
                let resource = HLSResource(uri: target.origin, byteRange: target.byteRange)
                let data = try await hls.data(for: resource)
                return Self.ranged(data, request: request, contentType: resource.contentType)
            }
        } catch {
            return .text(status: 502, "\(error)")
        }
    }

    private func progressive(
        _ url: URL, request: SampleOrigin.HandledRequest
    ) async throws -> SampleOrigin.HandledResponse {
        let info = try await video.contentInfo(for: url)
        let contentType = info.contentType ?? "application/octet-stream"
        let range = request.byteRange(forLength: info.length)
        var headers: [(name: String, value: String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        guard let range else {
            let body = info.length == 0 ? Data() : try await video.data(for: url, range: 0..<info.length)
            return SampleOrigin.HandledResponse(status: 200, headers: headers, body: body)
        }
        guard !range.isEmpty else {
            return SampleOrigin.HandledResponse(status: 416, headers: [("Content-Range", "bytes */\(info.length)")])
        }
        headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(info.length)"))
        let body = try await video.data(for: url, range: range)
        return SampleOrigin.HandledResponse(status: 206, headers: headers, body: body)
    }

    /// A cached resource, whole or by the request's `Range`.
    static func ranged(
        _ data: Data, request: SampleOrigin.HandledRequest, contentType: String
    ) -> SampleOrigin.HandledResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        guard let range = request.byteRange(forLength: data.count) else {
            return SampleOrigin.HandledResponse(status: 200, headers: headers, body: data)
        }
        guard !range.isEmpty else {
            return SampleOrigin.HandledResponse(status: 416, headers: [("Content-Range", "bytes */\(data.count)")])
        }
        headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(data.count)"))
        let start = data.startIndex
        let body = Data(data[(start + range.lowerBound)..<(start + range.upperBound)])
        return SampleOrigin.HandledResponse(status: 206, headers: headers, body: body)
    }
}
