import Foundation
import MediaAssetsHTTPServer
import Synchronization

/// A small HTTP/1.1 origin on 127.0.0.1 for tests and examples: the network of every MediaAssets test.
///
/// It serves registered resources (bytes and a content type) by path over plain POSIX sockets, with what a
/// media client meets in the wild: keep-alive, `Range` (206/416), validators (`ETag`, `Last-Modified`,
/// `If-None-Match`, `If-Modified-Since`, `If-Range`), `Cache-Control`, and per-path faults and timing set by
/// ``Behavior`` (latency, failures with `Retry-After`, cut-off bodies, lying lengths, ignored ranges,
/// throttled bodies, bodies that stall until the client hangs up, and gates that hold requests until the test
/// releases them).
///
/// Every request is logged per path (``RequestRecord``) with in-flight and peak counters, and async
/// `wait…` helpers let tests await a condition instead of sleeping:
///
/// ```swift
/// let origin = SampleOrigin()
/// origin.register("/cat.png", data: pngBytes, contentType: "image/png", cacheControl: "max-age=60")
/// try origin.start()
/// defer { origin.stop() }
/// origin.setBehavior("/cat.png", .init(gated: true))
/// async let image = loader.load(origin.url(for: "/cat.png"))
/// try await origin.waitForInFlight(path: "/cat.png", count: 1)   // the request is parked at the gate
/// origin.release("/cat.png")
/// ```
///
/// What each part offers:
/// - Content: ``register(_:data:contentType:cacheControl:lastModified:etag:)``, ``replace(_:data:)`` (new ETag and
///   Last-Modified), ``unregister(_:)``; unknown paths get 404. A request's query is ignored unless a path was
///   registered with that exact query.
/// - HTTP: GET and HEAD (other methods get 405); keep-alive and pipelining, `Connection: close` honoured;
///   `Range` as `a-b`, `a-` or `-n` (206), unsatisfiable (416 with `bytes */length`), several ranges (200);
///   `If-None-Match` / `If-Modified-Since` (304); `If-Range` (206 on match, 200 otherwise). Malformed heads get
///   400, heads over 64 KiB get 431, and the connection is closed; nothing a client sends can crash the origin.
/// - Faults and timing: ``setBehavior(_:_:)`` with a ``Behavior``; ``release(_:)`` opens a gate.
/// - Observation: ``requests(for:)``, ``requestCount(for:)``, ``inFlight(for:)``, ``peakInFlight``,
///   ``peakInFlight(for:)``, ``resetLog()`` and the async waits ``waitForRequests(path:count:timeout:)``,
///   ``waitForInFlight(path:count:timeout:)``, ``waitForFinishedRequests(path:count:timeout:)`` and
///   ``waitUntilClientClosed(path:timeout:)``.
///
/// Threading: it runs on the package's HTTP/1.1 core (`MediaAssetsHTTPServer`): one thread polls every socket
/// and runs the requests' tasks, so waits (gate, latency, throttle, stall) hold no thread at all and never
/// need the cooperative pool. Shared state sits behind a `Mutex`; large bodies go out in 1 MiB slices straight
/// from the `Data`'s buffer, each write waiting while the client is slow. ``stop()`` closes every socket and
/// joins the thread; always call it when done.
public final class SampleOrigin: Sendable {
    let state = Mutex(OriginState())
    /// The link bodies share when a bandwidth limit is set (``setBandwidthLimit(bytesPerSecond:)``).
    let bandwidth = BandwidthLimit()
    /// The HTTP/1.1 core: sockets, parsing, keep-alive, bounds and 4xx answers.
    let server: HTTPServer
    /// Keeps the ETags of two origins in one process apart.
    let instanceTag = String(UInt32.random(in: .min ... .max), radix: 16)

    /// Creates a stopped origin with no resources; register resources, then call ``start()``.
    public init() {
        // The server's handler holds the origin weakly: the origin owns the server, not the reverse.
        let reference = OriginReference()
        server = HTTPServer { request, writer in await reference.origin?.exchange(request, writer: writer) }
        reference.set(self)
    }

    /// The listening port, or 0 while stopped.
    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>` (the port is 0 while stopped).
    public var baseURL: URL { server.baseURL }

    /// The URL of `path` on this origin; the path is percent-encoded, a `?query` part is kept as a query.
    public func url(for path: String) -> URL {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        let pathPart = Self.normalized(String(parts.first ?? ""))
        components.percentEncodedPath =
            pathPart.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
            ?? pathPart
        if parts.count == 2 { components.query = String(parts[1]) }
        return components.url ?? baseURL
    }

    /// Serves `data` at `path` (a leading "/" is added when missing), replacing whatever was there.
    ///
    /// - Parameters:
    ///   - path: the request path to serve, for example `/images/cat.png`.
    ///   - data: the body served (or the part a `Range` request asks for).
    ///   - contentType: sent as `Content-Type`.
    ///   - cacheControl: sent as `Cache-Control` when set, for example `max-age=60` or `no-store`.
    ///   - lastModified: the `Last-Modified` date (whole seconds); now when `nil`.
    ///   - etag: the strong `ETag` (quotes included); a fresh one of this origin's when `nil`. A fixed one
    ///     keeps validators the same across origins, as a web server's do for a file.
    public func register(
        _ path: String,
        data: Data,
        contentType: String,
        cacheControl: String? = nil,
        lastModified: Date? = nil,
        etag: String? = nil
    ) {
        let path = Self.normalized(path)
        let modified = Self.wholeSeconds(lastModified ?? Date())
        state.withLock { state in
            let etag = etag ?? state._nextETag(instanceTag: instanceTag, length: data.count)
            state.resources[path] = OriginResource(
                data: data, contentType: contentType, cacheControl: cacheControl, lastModified: modified, etag: etag
            )
        }
    }

    /// Replaces the bytes at `path`, giving it a new ETag and a later Last-Modified; ignored if unregistered.
    public func replace(_ path: String, data: Data) {
        let path = Self.normalized(path)
        let now = Self.wholeSeconds(Date())
        state.withLock { state in
            guard var resource = state.resources[path] else { return }
            resource.data = data
            resource.etag = state._nextETag(instanceTag: instanceTag, length: data.count)
            // A later second than before, so If-Modified-Since sees the change even within one second.
            resource.lastModified = max(now, resource.lastModified.addingTimeInterval(1))
            state.resources[path] = resource
        }
    }

    /// Stops serving `path` (later requests get 404).
    public func unregister(_ path: String) {
        let path = Self.normalized(path)
        state.withLock { _ = $0.resources.removeValue(forKey: path) }
    }

    /// Sets the faults and timing of `path`, replacing its previous behaviour; takes effect for new requests,
    /// and removing the gate lets requests waiting at it go.
    public func setBehavior(_ path: String, _ behavior: Behavior) {
        let path = Self.normalized(path)
        let opened = state.withLock { state in
            state.behaviors[path] = behavior
            return state._openGate(path, everyone: false)
        }
        for waiter in opened { waiter.resume(returning: true) }
    }

    /// The behaviour of `path` as it is now (`failNext` shows the failures still to come).
    package func behavior(for path: String) -> Behavior {
        let path = Self.normalized(path)
        return state.withLock { $0.behaviors[path] ?? .normal }
    }

    /// Lets every request waiting at the gate of `path` proceed.
    ///
    /// Requests arriving later wait again while the path stays gated; remove the gate with
    /// ``setBehavior(_:_:)`` to let everything through. Call it after ``waitForInFlight(path:count:timeout:)``
    /// so the requests you mean are already waiting.
    public func release(_ path: String) {
        let path = Self.normalized(path)
        let opened = state.withLock { state in
            state.gateReleases[path, default: 0] += 1
            return state._openGate(path, everyone: false)
        }
        for waiter in opened { waiter.resume(returning: true) }
    }

    /// The current ETag of `path`, or `nil` if nothing is registered there.
    package func etag(for path: String) -> String? {
        let path = Self.normalized(path)
        return state.withLock { $0.resources[path]?.etag }
    }

    /// The current Last-Modified date of `path`, or `nil` if nothing is registered there.
    package func lastModified(for path: String) -> Date? {
        let path = Self.normalized(path)
        return state.withLock { $0.resources[path]?.lastModified }
    }

    static func normalized(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }

    /// Whole seconds, clamped to years 1970...9999 so any caller-given date formats as an HTTP date.
    static func wholeSeconds(_ date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: min(max(seconds.rounded(.down), 0), 253_402_300_799))
    }
}

/// The origin a server's handler answers for, held weakly.
final class OriginReference: Sendable {
    private struct Weak {
        weak var origin: SampleOrigin?
    }

    private let reference = Mutex(Weak())

    var origin: SampleOrigin? { reference.withLock { $0.origin } }

    func set(_ origin: SampleOrigin) { reference.withLock { $0.origin = origin } }
}

/// Failures of ``SampleOrigin``: socket set-up, thread start and timed-out waits in tests.
public enum SampleOriginError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A socket call failed; carries the call's name and `errno`.
    case socketCallFailed(operation: String, errno: Int32)
    /// ``SampleOrigin/start()`` was called while the origin was already listening on `port`.
    case alreadyRunning(port: Int)
    /// `pthread_create` refused to start a thread; carries its error code.
    case threadStartFailed(code: Int32)
    /// A wait helper gave up: `condition` on `path` did not become true within `timeout`.
    case timedOut(condition: String, path: String, timeout: Duration)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .socketCallFailed(operation, code):
            return "SampleOrigin: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .alreadyRunning(port):
            return "SampleOrigin: already running on 127.0.0.1:\(port); call stop() before start()"
        case let .threadStartFailed(code):
            return "SampleOrigin: could not start a thread: \(String(cString: strerror(code))) (code \(code))"
        case let .timedOut(condition, path, timeout):
            return "SampleOrigin: timed out after \(timeout) waiting for \(condition) on \(path)"
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
