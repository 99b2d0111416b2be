import Foundation
import MediaAssets
import MediaAssetsHTTPServer
import MediaAssetsVideo
import Synchronization

/// A loopback HTTP server that lets any player (ffplay, mpv, VLC, AVPlayer) play through the caches.
///
/// `proxyURL(for:)` turns an origin URL into `http://127.0.0.1:<port>/…`. A progressive file is served by
/// `Range` through `VideoUtil` (a download, the chunk cache, or the origin), streamed: every response is
/// written while it is read, its bytes handed on as they arrive and fetched at most the util's read-ahead
/// (`VideoUtil.Configuration.readAhead`) beyond what the player took, so a range of any size holds at most
/// that per connection, and a seek costs the origin what the player read plus the read-ahead. An HLS
/// playlist is fetched through `HLSUtil` and rewritten so every variant, rendition, segment, init section
/// and key is a proxy URL again; those are served from `HLSUtil` (a download or its cache). A second play
/// therefore makes no origin request.
///
/// It runs on `MediaAssetsHTTPServer` (the package's HTTP/1.1 core): loopback only, keep-alive, many
/// connections on one polling thread, bounded heads and connections, 4xx for malformed requests, and a
/// client hanging up cancels the fetches only it needed.
///
/// ```swift
/// let proxy = VideoProxy(video: VideoUtil(manager: manager), hls: HLSUtil(manager: manager))
/// try proxy.start()
/// player.play(proxy.proxyURL(for: streamURL))
/// ```
public final class VideoProxy: Sendable {
    /// The util progressive files are read through.
    public let video: VideoUtil
    /// The util playlists and segments are read through; without it, playlists are answered 501.
    public let hls: HLSUtil?
    /// The HTTP/1.1 server answering players.
    let server: HTTPServer

    /// Creates a stopped proxy over `video` (and `hls` for HLS streams); at most `maximumConnections` are
    /// served at once.
    public init(video: VideoUtil, hls: HLSUtil? = nil, maximumConnections: Int = 64) {
        self.video = video
        self.hls = hls
        let reference = ProxyReference()
        // 1 MiB of output queued per connection keeps the socket busy between two pieces of a window. Answers
        // run where the util's readers run (the pool): each piece is written without a hop to the server's
        // thread, which only waits for slow sockets (the warm 256 MiB row: 1.8x nginx rather than 2.5x).
        let configuration = HTTPServer.Configuration(
            maximumConnections: maximumConnections, writeBufferSize: 1 << 20, runsHandlersOnServerThread: false)
        server = HTTPServer(configuration: configuration) { request, writer in
            await reference.proxy?.respond(to: request, writer: writer)
        }
        reference.set(self)
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts serving.
    ///
    /// - Throws: `VideoError.proxyUnavailable` with the reason: already running (its port), or the system's.
    public func start() throws(VideoError) {
        do { try server.start() } catch { throw .proxyUnavailable(reason: error.description) }
    }

    /// Stops serving: closes every connection (cancelling the answers under way and their origin fetches)
    /// and joins the server's thread.
    public func stop() {
        server.stop()
    }

    /// The listening port, or 0 while stopped.
    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>` (the port is 0 while stopped).
    public var baseURL: URL { server.baseURL }

    /// Requests answered since creation (players' requests, not origin requests).
    public var requestCount: Int { server.requestCount }

    /// Requests refused before they were answered (malformed, too large, over the connection bound).
    package var rejectedRequestCount: Int { server.rejectedRequestCount }

    /// The proxy URL standing for `url`: a playlist when its path ends in `.m3u8`, else a progressive file.
    public func proxyURL(for url: URL) -> URL {
        let kind: ProxyTarget.Kind = url.pathExtension.lowercased() == "m3u8" ? .playlist : .progressive
        return proxyURL(ProxyTarget(kind: kind, origin: url))
    }

    func proxyURL(_ target: ProxyTarget) -> URL {
        URL(string: server.baseURL.absoluteString + target.path) ?? server.baseURL
    }

    /// Answers one player request.
    func respond(to request: HTTPRequest, writer: HTTPResponseWriter) async {
        guard request.method == "GET" || request.method == "HEAD" else {
            return await Self.text(405, "only GET and HEAD", writer: writer, extra: [("Allow", "GET, HEAD")])
        }
        guard let target = ProxyTarget(path: request.path) else {
            return await Self.text(400, "not a proxy URL: \(request.path.prefix(200))", writer: writer)
        }
        do {
            switch target.kind {
            case .progressive:
                try await progressive(target.origin, request: request, writer: writer)
            case .playlist:
                guard let hls else {
                    return await Self.text(501, "this proxy serves no HLS (it has no HLSUtil)", writer: writer)
                }
                let body = try await playlist(target.origin, hls: hls)
                try await Self.send(
                    body, request: request, contentType: "application/vnd.apple.mpegurl",
                    ranged: false, writer: writer)
            case .resource:
                guard let hls else {
                    return await Self.text(501, "this proxy serves no HLS (it has no HLSUtil)", writer: writer)
                }
                let resource = HLSResource(uri: target.origin, byteRange: target.byteRange)
                let data = try await hls.data(for: resource)
                try await Self.send(
                    data, request: request, contentType: resource.contentType, ranged: true,
                    writer: writer)
            }
        } catch {
            // Before the head: an answer saying why. After it: the connection closes, the body cut short.
            if !writer.isHeadWritten { await Self.text(502, "\(error)", writer: writer) }
            await writer.finish(closingConnection: true)
        }
    }

    /// A progressive file by `Range`, streamed from `VideoUtil` as its bytes come.
    private func progressive(_ url: URL, request: HTTPRequest, writer: HTTPResponseWriter) async throws {
        let info = try await video.contentInfo(for: url)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", info.contentType ?? "application/octet-stream"), ("Accept-Ranges", "bytes"),
        ]
        if let etag = info.etag { headers.append(("ETag", etag)) }
        if let lastModified = info.lastModified { headers.append(("Last-Modified", lastModified)) }
        let status: Int
        let range: Range<Int>
        switch request.byteRange(forLength: info.length) {
        case .whole:
            status = 200
            range = 0..<info.length
        case .partial(let bytes):
            status = 206
            range = bytes
            headers.append(("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(info.length)"))
        case .unsatisfiable:
            let body = Data("range not satisfiable\n".utf8)
            try await writer.writeHead(
                status: 416,
                headers: [("Content-Range", "bytes */\(info.length)"), ("Content-Length", "\(body.count)")])
            try await writer.write(body)
            return
        }
        headers.append(("Content-Length", "\(range.count)"))
        try await writer.writeHead(status: status, headers: headers)
        guard request.method == "GET", !range.isEmpty else { return }
        for try await piece in video.stream(for: url, range: range) { try await writer.write(piece) }
    }

    /// Bytes in memory (a playlist, a segment), whole or by the request's `Range` when `ranged`.
    static func send(
        _ data: Data, request: HTTPRequest, contentType: String, ranged: Bool, writer: HTTPResponseWriter
    ) async throws {
        var headers: [(name: String, value: String)] = [("Content-Type", contentType)]
        var body = data
        var status = 200
        if ranged {
            headers.append(("Accept-Ranges", "bytes"))
            switch request.byteRange(forLength: data.count) {
            case .whole: break
            case .partial(let range):
                status = 206
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(data.count)"))
                body = data[(data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound)]
            case .unsatisfiable:
                status = 416
                headers.append(("Content-Range", "bytes */\(data.count)"))
                body = Data()
            }
        }
        headers.append(("Content-Length", "\(body.count)"))
        try await writer.writeHead(status: status, headers: headers)
        try await writer.write(body)
    }

    /// A short plain-text answer.
    static func text(
        _ status: Int, _ message: String, writer: HTTPResponseWriter, extra: [(name: String, value: String)] = []
    ) async {
        let body = Data((message + "\n").utf8)
        let headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(body.count)")] + extra
        try? await writer.writeHead(status: status, headers: headers)
        try? await writer.write(body)
    }
}

/// The proxy a server's handler answers for, held weakly (the proxy owns the server, not the reverse).
final class ProxyReference: Sendable {
    private struct Weak {
        weak var proxy: VideoProxy?
    }

    private let reference = Mutex(Weak())

    var proxy: VideoProxy? { reference.withLock { $0.proxy } }

    func set(_ proxy: VideoProxy) { reference.withLock { $0.proxy = proxy } }
}
