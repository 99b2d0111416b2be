import Foundation

/// Writes the answer to one request: a head, then the body, piece by piece.
///
/// Writes queue their bytes on the connection and return at once while little is queued; past
/// ``HTTPServer/Configuration/writeBufferSize`` they suspend until the client has taken enough, so a
/// slow client holds a bounded amount of memory whatever the size of the body. Every write throws
/// ``HTTPServerError/connectionClosed`` once the client has hung up or the server stopped.
///
/// The head is sent as given, plus a `Connection` field: set `Content-Length` yourself. The connection
/// stays open for another request when the client wants it, the body matched its `Content-Length`
/// (or the request was a HEAD) and `closingConnection` was not asked. Bodies of HEAD requests are dropped.
package final class HTTPResponseWriter: Sendable {
    /// What went out of a response, as ``finish(closingConnection:)`` reports it.
    package struct Outcome: Sendable, Hashable {
        /// Body bytes the socket took (HEAD answers send none).
        package var bodyBytesSent: Int
        /// Whether the client hung up before everything written had been sent.
        package var clientClosedEarly: Bool
        /// Whether the connection stays open for another request.
        package var connectionReusable: Bool
    }

    let server: HTTPServer
    let connectionID: Int
    /// The request being answered.
    package let request: HTTPRequest

    init(server: HTTPServer, connectionID: Int, request: HTTPRequest) {
        self.server = server
        self.connectionID = connectionID
        self.request = request
    }

    /// Whether the client is still connected (it has not hung up, and the server runs).
    package var isClientConnected: Bool {
        server.state.withLock { state in
            guard let connection = state.connections[connectionID] else { return false }
            return !connection.isBroken && !state.isStopping
        }
    }

    /// Whether the head was written.
    package var isHeadWritten: Bool {
        server.state.withLock { $0.connections[connectionID]?.response.headWritten ?? false }
    }

    /// Queues the status line and `headers` (in order), plus `Connection: keep-alive` or `close`.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - headers: the header fields, `Content-Length` included (the server reads it to know when the
    ///     body is complete); no `Connection` field.
    ///   - closingConnection: closes the connection after this response whatever the client asked.
    /// - Throws: ``HTTPServerError/connectionClosed``.
    package func writeHead(
        status: Int, headers: [(name: String, value: String)], closingConnection: Bool = false
    ) async throws {
        try await enqueue(isBody: false) { connection, isStopping in
            guard !connection.response.headWritten else { return nil }
            connection.response.headWritten = true
            connection.response.closesAfter = connection.response.closesAfter || closingConnection || isStopping
            connection.response.declaredLength = headers.last { $0.name.lowercased() == "content-length" }
                .flatMap { Int($0.value.trimmingCharacters(in: .whitespaces)) }
            let keepsOpen = connection.response.keepAliveRequested && !connection.response.closesAfter
            var text = "HTTP/1.1 \(status) \(Self.reasonPhrase(for: status))\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += keepsOpen ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
            return Data(text.utf8)
        }
    }

    /// Queues body bytes; suspends while the connection's queued output is over the write buffer size.
    ///
    /// - Throws: ``HTTPServerError/connectionClosed``.
    package func write(_ data: Data) async throws {
        guard !data.isEmpty else { return }
        try await enqueue(isBody: true) { connection, _ in
            guard !connection.response.isHeadRequest else { return nil }
            connection.response.bodyBytesQueued += data.count
            return data
        }
    }

    /// Ends the response: waits until its bytes are sent (or the client is gone) and reports what went out.
    ///
    /// - Parameter closingConnection: closes the connection afterwards (after a cut-off body, for example).
    @discardableResult
    package func finish(closingConnection: Bool = false) async -> Outcome {
        let gone = server.state.withLock { state -> Bool in
            guard state.connections[connectionID] != nil else { return true }
            state.connections[connectionID]!.response.isFinished = true
            if closingConnection { state.connections[connectionID]!.response.closesAfter = true }
            return false
        }
        if !gone {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = server.state.withLock { state -> Bool in
                    guard var connection = state.connections[connectionID] else { return true }
                    connection._flush()
                    defer { state.connections[connectionID] = connection }
                    if connection.output.isEmpty || connection.isBroken || state.isStopping { return true }
                    connection.flushWaiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() } else { server.wakeLoop() }
            }
        }
        return server.state.withLock { state in
            guard let connection = state.connections[connectionID] else {
                return Outcome(bodyBytesSent: 0, clientClosedEarly: false, connectionReusable: false)
            }
            let response = connection.response
            let complete =
                connection.output.isEmpty
                && response.declaredLength.map { $0 <= response.bodyBytesSent }
                    ?? true
            return Outcome(
                bodyBytesSent: response.bodyBytesSent,
                clientClosedEarly: connection.isBroken && !state.isStopping && !complete,
                connectionReusable: connection._isReusable && !state.isStopping
            )
        }
    }

    /// Returns once the client has hung up, or the server stops: for a response that sends nothing more.
    package func waitUntilClientCloses() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = server.state.withLock { state -> Bool in
                guard let connection = state.connections[connectionID], !connection.isBroken, !state.isStopping
                else { return true }
                state.connections[connectionID]!.hangUpWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Queues what `make` returns (nil: nothing to queue), sends what the socket takes, and waits while
    /// too much is queued.
    private func enqueue(
        isBody: Bool, _ make: (inout Connection, _ isStopping: Bool) -> Data?
    ) async throws {
        let limit = server.configuration.writeBufferSize
        let (mustWait, wakes) = try server.state.withLock { state throws(HTTPServerError) -> (Bool, Bool) in
            guard var connection = state.connections[connectionID], !connection.isBroken, !state.isStopping else {
                throw .connectionClosed
            }
            defer { state.connections[connectionID] = connection }
            guard let bytes = make(&connection, state.isStopping) else { return (false, false) }
            connection.output.append(Connection.Output(data: bytes, isBody: isBody))
            connection.queuedBytes += bytes.count
            connection._flush()
            if connection.isBroken { throw .connectionClosed }
            return (connection.queuedBytes > limit, !connection.output.isEmpty)
        }
        // The loop polls for writability only once it sees output waiting.
        if wakes { server.wakeLoop() }
        guard mustWait else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let outcome = server.state.withLock { state -> Result<Void, Error>? in
                guard let connection = state.connections[connectionID], !connection.isBroken, !state.isStopping else {
                    return .failure(HTTPServerError.connectionClosed)
                }
                if connection.queuedBytes <= limit / 2 { return .success(()) }
                state.connections[connectionID]!.writerWaiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Called by the server after the handler returned: answers 500 when it wrote nothing, finishes the
    /// response, and hands the connection back for its next request or closes it.
    func end() async {
        if !isHeadWritten {
            let body = Data("the server wrote no answer\n".utf8)
            try? await writeHead(
                status: 500, headers: [("Content-Type", "text/plain"), ("Content-Length", "\(body.count)")],
                closingConnection: true)
            try? await write(body)
        }
        let outcome = await finish()
        server.responseDidEnd(connectionID: connectionID, reusable: outcome.connectionReusable)
    }

    /// The reason phrase for a status line.
    static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

extension HTTPServer {
    /// The handler of a request on connection `id` has ended: the connection carries the next request
    /// (already buffered, perhaps), or closes.
    func responseDidEnd(connectionID id: Int, reusable: Bool) {
        var resumptions: [@Sendable () -> Void] = []
        state.withLock { state in
            guard var connection = state.connections[id], !state.isStopping else { return }
            connection.task = nil
            if connection.isBroken {
                _close(&connection, state: &state, resumptions: &resumptions)
                return
            }
            defer { state.connections[id] = connection }
            guard reusable else {
                connection.phase = .closingAfterFlush
                if connection.output.isEmpty { Self._beginLinger(&connection) }
                return
            }
            connection.phase = .idle(deadline: ContinuousClock.now + configuration.idleTimeout)
            _ = _startNextRequest(&connection, state: &state)
        }
        for resume in resumptions { resume() }
        wakeLoop()
    }
}
