import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1: one thread polls every socket, handlers are async.
///
/// It is the server core of the package's loopback servers: the video proxy (`VideoProxy`) and the
/// test origin (`SampleOrigin`). The server binds loopback only, keeps connections alive (pipelining
/// included), bounds what a client can make it hold (connections, head and request-body sizes, queued
/// output per connection) and answers what it cannot parse with 400, 413, 431 or 505 before closing.
///
/// One thread polls the listening socket and every connection (non-blocking sockets); no thread waits
/// per connection. Each request is answered by the handler, an async function given the request and an
/// ``HTTPResponseWriter`` whose writes suspend while the client is slow, so a response of any size goes
/// out with bounded memory. Requests of one connection are answered one after another. By default the
/// handlers run on the server's own thread (see ``Configuration/runsHandlersOnServerThread``). A
/// client that hangs up cancels the task of its handler.
///
/// ```swift
/// let server = HTTPServer { request, response in
///     let body = Data("hello \(request.path)\n".utf8)
///     try? await response.writeHead(status: 200, headers: [("Content-Length", "\(body.count)")])
///     try? await response.write(body)
/// }
/// try server.start()
/// defer { server.stop() }
/// print(server.baseURL)
/// ```
package final class HTTPServer: Sendable {
    /// Answers one request: writes a head, then the body, through the writer.
    ///
    /// The server answers 500 for a handler that returns without writing a head, and closes the
    /// connection after a body shorter than its `Content-Length`.
    package typealias Handler = @Sendable (HTTPRequest, HTTPResponseWriter) async -> Void

    /// The bounds in use.
    package let configuration: Configuration
    let handler: Handler
    let state: Mutex<ServerState>
    let executor = ServerExecutor()

    /// Creates a stopped server answering every request with `handler`.
    package init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
        var configuration = configuration
        configuration.maximumConnections = max(1, configuration.maximumConnections)
        configuration.writeBufferSize = max(1, configuration.writeBufferSize)
        self.configuration = configuration
        self.handler = handler
        self.state = Mutex(ServerState(maximumConnections: configuration.maximumConnections))
    }

    /// At most this many connections are served at once; one more is answered 503 and closed.
    ///
    /// Starts as ``Configuration/maximumConnections``; a change applies to connections accepted later.
    package var maximumConnections: Int {
        get { state.withLock { $0.maximumConnections } }
        set { state.withLock { $0.maximumConnections = max(1, newValue) } }
    }

    /// The listening port, or 0 while stopped.
    package var port: Int {
        state.withLock { state in
            if case .running(_, let port, _, _, _) = state.phase, !state.isStopping { return port }
            return 0
        }
    }

    /// `http://127.0.0.1:<port>` (the port is 0 while stopped).
    package var baseURL: URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// TCP connections accepted since creation (fewer than requests shows keep-alive at work).
    package var acceptedConnectionCount: Int { state.withLock { $0.acceptedConnectionCount } }

    /// Connections open right now (not counting ones closing after their last answer).
    package var activeConnectionCount: Int { state.withLock { $0.activeConnectionCount } }

    /// Requests rejected before a handler saw them (400, 413, 431, 505, and 503 for connections over the bound).
    package var rejectedRequestCount: Int { state.withLock { $0.rejectedRequestCount } }

    /// Requests handed to the handler since creation.
    package var requestCount: Int { state.withLock { $0.requestCount } }

    /// Threads the server runs (its polling thread); 0 once ``stop()`` has returned.
    package var runningThreadCount: Int {
        state.withLock { state in
            if case .running(_, _, let thread, _, _) = state.phase, thread != nil { return 1 }
            return 0
        }
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts serving.
    ///
    /// After it returns, ``port`` and ``baseURL`` are valid. A stopped server can be started again
    /// (usually on a new port).
    ///
    /// - Throws: ``HTTPServerError/alreadyRunning(port:)``, or ``HTTPServerError/socketCallFailed(operation:errno:)``
    ///   and ``HTTPServerError/threadStartFailed(code:)`` with the system's reason.
    package func start() throws(HTTPServerError) {
        let running = state.withLock { state -> Int? in
            if case .running(_, let port, _, _, _) = state.phase { return port }
            return nil
        }
        if let running { throw .alreadyRunning(port: running) }
        let (listenFD, port) = try Socket.listenOnLoopback()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Socket.makeWakePipe()
        } catch {
            close(listenFD)
            throw error
        }
        let claimed = state.withLock { state -> Bool in
            guard case .stopped = state.phase else { return false }
            state.isStopping = false
            state.phase = .running(
                listenFD: listenFD, port: port, thread: nil, wakeRead: wake.read, wakeWrite: wake.write)
            return true
        }
        guard claimed else {
            for fd in [listenFD, wake.read, wake.write] { close(fd) }
            throw .alreadyRunning(port: self.port)
        }
        executor.open(wakeFD: wake.write)
        do {
            let thread = try NativeThread.start { [self] in runLoop(listenFD: listenFD, wakeRead: wake.read) }
            state.withLock { state in
                if case .running(let fd, let port, _, let read, let write) = state.phase {
                    state.phase = .running(listenFD: fd, port: port, thread: thread, wakeRead: read, wakeWrite: write)
                }
            }
        } catch {
            executor.close()
            state.withLock { $0.phase = .stopped }
            for fd in [listenFD, wake.read, wake.write] { close(fd) }
            throw error
        }
    }

    /// Stops serving: closes the listening socket and every connection, cancels the handlers under way
    /// and joins the server's thread.
    ///
    /// When it returns, connecting to the old port is refused and ``runningThreadCount`` and
    /// ``activeConnectionCount`` are 0; handlers still running see their writes fail and finish on a
    /// global queue. Calling it on a stopped server does nothing.
    package func stop() {
        let thread = state.withLock { state -> pthread_t? in
            guard case .running(_, _, let thread, _, _) = state.phase, !state.isStopping else { return nil }
            state.isStopping = true
            return thread
        }
        guard let thread else { return }
        wakeLoop()
        if NativeThread.isCurrent(thread) {
            // A handler on the server's own thread stopped it: the loop ends after this job; nobody joins it.
            pthread_detach(thread)
            return
        }
        NativeThread.join(thread)
    }

    /// Wakes the polling thread so it sees a change (a stop, queued output, a connection handed back).
    func wakeLoop() {
        // Written under the lock: the loop closes the pipe under it, so the descriptor cannot be reused meanwhile.
        state.withLock { state in
            if case .running(_, _, _, _, let write) = state.phase { ServerExecutor.wake(write) }
        }
    }
}

/// Failures of ``HTTPServer``: socket set-up, the thread start, and writes to a connection that is gone.
package enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A socket call failed; carries the call's name and `errno`.
    case socketCallFailed(operation: String, errno: Int32)
    /// ``HTTPServer/start()`` was called while the server was already listening on `port`.
    case alreadyRunning(port: Int)
    /// `pthread_create` refused to start the server's thread; carries its error code.
    case threadStartFailed(code: Int32)
    /// The client hung up, the connection failed, or the server stopped before the write.
    case connectionClosed

    /// A sentence a person can act on.
    package var description: String {
        switch self {
        case let .socketCallFailed(operation, code):
            return "HTTPServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .alreadyRunning(port):
            return "HTTPServer: already running on 127.0.0.1:\(port); call stop() before start()"
        case let .threadStartFailed(code):
            return "HTTPServer: could not start its thread: \(String(cString: strerror(code))) (code \(code))"
        case .connectionClosed:
            return "HTTPServer: the connection is closed (the client hung up or the server stopped)"
        }
    }

    /// The same text as ``description``.
    package var errorDescription: String? { description }
}

extension HTTPServer {
    /// The bounds of an ``HTTPServer``: every one holds under any load a client can make.
    package struct Configuration: Sendable {
        /// At most this many connections are served at once; one more is answered 503 and closed.
        package var maximumConnections: Int
        /// Request heads larger than this get 431 and the connection is closed.
        package var maximumHeadSize: Int
        /// Request bodies (skipped: GET and HEAD carry none) larger than this get 413.
        package var maximumRequestBodySize: Int
        /// A writer suspends while more than this many bytes of its connection wait to be sent: the
        /// most a response holds in the server beside the piece being written.
        package var writeBufferSize: Int
        /// A connection that sends nothing for this long between requests is closed.
        package var idleTimeout: Duration
        /// Whether handlers run on the server's own thread (a task executor) rather than the cooperative
        /// pool: a server that waits a lot (gates, latency, slow clients) then never needs a pool thread.
        package var runsHandlersOnServerThread: Bool

        /// Creates a configuration: 256 connections, 64 KiB heads, 1 MiB request bodies, 256 KiB of output
        /// per connection, two minutes of idleness, handlers on the server's thread.
        package init(
            maximumConnections: Int = 256, maximumHeadSize: Int = 64 << 10, maximumRequestBodySize: Int = 1 << 20,
            writeBufferSize: Int = 256 << 10, idleTimeout: Duration = .seconds(120),
            runsHandlersOnServerThread: Bool = true
        ) {
            self.maximumConnections = maximumConnections
            self.maximumHeadSize = maximumHeadSize
            self.maximumRequestBodySize = maximumRequestBodySize
            self.writeBufferSize = writeBufferSize
            self.idleTimeout = idleTimeout
            self.runsHandlersOnServerThread = runsHandlersOnServerThread
        }
    }
}
