import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension HTTPServer {
    /// How long a closing connection reads what the client still sends, and how much at most.
    static let lingerTime = Duration.milliseconds(100)
    static let lingerBytes = 1 << 20

    /// What one poll watches: the wake pipe, the listener, or a connection.
    private enum Watched {
        case wake
        case listener
        case connection(Int)
    }

    /// The server's thread: runs handler jobs, polls every socket, and acts on what it finds, until stop().
    func runLoop(listenFD: Int32, wakeRead: Int32) {
        var descriptors: [pollfd] = []
        var watched: [Watched] = []
        while true {
            // Handler jobs first, a bounded number of rounds, so sockets are polled between bursts.
            var rounds = 0
            while executor.runQueuedJobs(), rounds < 16 { rounds += 1 }
            let jobsWaiting = executor.prepareToPoll()
            descriptors.removeAll(keepingCapacity: true)
            watched.removeAll(keepingCapacity: true)
            let timeout = state.withLock { state -> Int32? in
                if state.isStopping { return nil }
                descriptors.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
                watched.append(.wake)
                let now = ContinuousClock.now
                if state.acceptPausedUntil.map({ $0 <= now }) ?? true {
                    state.acceptPausedUntil = nil
                    descriptors.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0))
                    watched.append(.listener)
                }
                var nearest = state.acceptPausedUntil
                for (id, connection) in state.connections {
                    let events = Self.events(for: connection)
                    if events != 0 {
                        descriptors.append(pollfd(fd: connection.fd, events: events, revents: 0))
                        watched.append(.connection(id))
                    }
                    if let deadline = Self.deadline(of: connection) { nearest = min(nearest ?? deadline, deadline) }
                }
                guard let nearest else { return -1 }
                let milliseconds = now.duration(to: nearest) / .milliseconds(1)
                return Int32(max(0, min(milliseconds.rounded(.up), 60_000)))
            }
            guard let timeout else { break }
            let ready = poll(&descriptors, nfds_t(descriptors.count), jobsWaiting ? 0 : timeout)
            if ready < 0, errno != EINTR { break }
            var resumptions: [@Sendable () -> Void] = []
            state.withLock { state in
                for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                    switch watched[index] {
                    case .wake: Self.drain(wakeRead)
                    case .listener: _acceptConnections(&state, listenFD: listenFD)
                    case .connection(let id):
                        _handleEvents(descriptor.revents, connectionID: id, state: &state, resumptions: &resumptions)
                    }
                }
                _closeExpired(&state)
            }
            for resume in resumptions { resume() }
        }
        shutDown()
    }

    /// The poll events a connection waits for in its phase.
    private static func events(for connection: Connection) -> Int16 {
        let writable = connection.output.isEmpty ? 0 : Int16(POLLOUT)
        switch connection.phase {
        case .idle:
            return (connection.input.room > 0 ? Int16(POLLIN) : 0) | Socket.readHangUp | writable
        case .responding:
            guard !connection.isBroken else { return 0 }
            return (connection.input.room > 0 ? Int16(POLLIN) : 0) | Socket.readHangUp | writable
        case .closingAfterFlush:
            return connection.isBroken ? 0 : Int16(POLLIN) | writable
        case .lingering:
            return Int16(POLLIN)
        }
    }

    private static func deadline(of connection: Connection) -> ContinuousClock.Instant? {
        switch connection.phase {
        case .idle(let deadline): return deadline
        case .lingering(let deadline, _): return deadline
        case .responding, .closingAfterFlush: return nil
        }
    }

    private static func drain(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 256)
        while read(fd, &scratch, scratch.count) > 0 {}
    }

    /// Accepts every pending connection; one over the bound is answered 503 and closed.
    private func _acceptConnections(_ state: inout ServerState, listenFD: Int32) {
        while true {
            let fd = Socket.acceptConnection(on: listenFD)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN, errno != EWOULDBLOCK {
                    // Out of descriptors or memory: back off briefly instead of spinning.
                    state.acceptPausedUntil = ContinuousClock.now.advanced(by: .milliseconds(20))
                }
                return
            }
            state.nextConnectionID += 1
            let id = state.nextConnectionID
            let input = RequestHeadBuffer(
                maximumHeadSize: configuration.maximumHeadSize, maximumBodySize: configuration.maximumRequestBodySize)
            var connection = Connection(
                id: id, fd: fd, input: input, phase: .idle(deadline: ContinuousClock.now + configuration.idleTimeout))
            if state.activeConnectionCount >= state.maximumConnections {
                state.rejectedRequestCount += 1
                Self._queueErrorAnswer(&connection, status: 503, reason: "too many connections")
            } else {
                state.acceptedConnectionCount += 1
            }
            state.connections[id] = connection
        }
    }

    /// Acts on the poll events of one connection.
    private func _handleEvents(
        _ events: Int16, connectionID id: Int, state: inout ServerState, resumptions: inout [@Sendable () -> Void]
    ) {
        guard var connection = state.connections[id] else { return }
        defer { if state.connections[id] != nil { state.connections[id] = connection } }
        let hangUp = events & (Int16(POLLHUP) | Int16(POLLERR)) != 0
        let readable = events & (Int16(POLLIN) | Socket.readHangUp) != 0
        switch connection.phase {
        case .idle:
            if events & Int16(POLLOUT) != 0 { connection._flush() }
            var peerClosed = hangUp
            if readable, _readInput(&connection) { peerClosed = true }
            if _startNextRequest(&connection, state: &state) { return }
            if peerClosed || connection.isBroken {
                _close(&connection, state: &state, resumptions: &resumptions)
            } else if events & Int16(POLLIN) != 0 {
                connection.phase = .idle(deadline: ContinuousClock.now + configuration.idleTimeout)
            }
        case .responding:
            if events & Int16(POLLOUT) != 0 { connection._flush() }
            var peerClosed = hangUp
            if readable, connection.input.room > 0, _readInput(&connection) { peerClosed = true }
            if readable, connection.input.room == 0, events & Socket.readHangUp != 0 { peerClosed = true }
            if peerClosed {
                connection.isBroken = true
                connection.task?.cancel()
            }
            resumptions += connection._takeSatisfiedWaiters(writeBufferSize: configuration.writeBufferSize)
        case .closingAfterFlush:
            if events & Int16(POLLOUT) != 0 { connection._flush() }
            if readable { _ = Socket.discard(connection.fd, limit: 64 << 10) }
            if connection.output.isEmpty || connection.isBroken || hangUp { Self._beginLinger(&connection) }
        case .lingering(let deadline, let drained):
            let transfer = Socket.discard(connection.fd, limit: 64 << 10)
            switch transfer {
            case .moved(let count) where drained + count < Self.lingerBytes:
                connection.phase = .lingering(deadline: deadline, drained: drained + count)
            case .wouldBlock:
                break
            default:
                _close(&connection, state: &state, resumptions: &resumptions)
            }
        }
    }

    /// Reads what the client sent; returns whether it has hung up.
    private func _readInput(_ connection: inout Connection) -> Bool {
        while connection.input.room > 0 {
            switch connection.input.receive(from: connection.fd) {
            case .moved: continue
            case .wouldBlock: return false
            case .closed: return true
            }
        }
        return false
    }

    /// Starts the handler of the next buffered request, or answers a bad one; returns whether it did either.
    func _startNextRequest(_ connection: inout Connection, state: inout ServerState) -> Bool {
        guard !state.isStopping, !connection.isBroken else { return false }
        switch connection.input.next() {
        case .incomplete:
            return false
        case .rejected(let status, let reason):
            state.rejectedRequestCount += 1
            Self._queueErrorAnswer(&connection, status: status, reason: reason)
            return true
        case .request(var request):
            request.connectionID = connection.id
            state.requestCount += 1
            connection.phase = .responding
            connection.response = Connection.ResponseProgress(
                isHeadRequest: request.method == "HEAD", keepAliveRequested: request.wantsKeepAlive)
            let writer = HTTPResponseWriter(server: self, connectionID: connection.id, request: request)
            connection.task = startHandler(request, writer)
            return true
        }
    }

    private func startHandler(_ request: HTTPRequest, _ writer: HTTPResponseWriter) -> Task<Void, Never> {
        let operation: @Sendable () async -> Void = { [self] in
            await handler(request, writer)
            await writer.end()
        }
        if configuration.runsHandlersOnServerThread {
            return Task(executorPreference: executor, operation: operation)
        }
        return Task(operation: operation)
    }

    /// Queues a short plain-text answer, after which the connection closes.
    static func _queueErrorAnswer(_ connection: inout Connection, status: Int, reason: String) {
        let body = Data((reason + "\n").utf8)
        var head = "HTTP/1.1 \(status) \(HTTPResponseWriter.reasonPhrase(for: status))\r\n"
        head += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Data(head.utf8) + body
        connection.output.append(Connection.Output(data: bytes, isBody: false))
        connection.queuedBytes += bytes.count
        connection.phase = .closingAfterFlush
        connection._flush()
        if connection.output.isEmpty || connection.isBroken { _beginLinger(&connection) }
    }

    /// Shuts our side down and reads what the client still sends for a short, bounded time.
    static func _beginLinger(_ connection: inout Connection) {
        _ = shutdown(connection.fd, Int32(SHUT_WR))
        connection.phase = .lingering(deadline: ContinuousClock.now + lingerTime, drained: 0)
    }

    /// Closes a connection at once, failing whatever waits on it.
    func _close(_ connection: inout Connection, state: inout ServerState, resumptions: inout [@Sendable () -> Void]) {
        connection.isBroken = true
        resumptions += connection._takeWaiters(failing: true)
        connection.task?.cancel()
        close(connection.fd)
        state.connections[connection.id] = nil
    }

    /// Closes idle connections past their deadline and lingering ones whose time is up.
    private func _closeExpired(_ state: inout ServerState) {
        let now = ContinuousClock.now
        for (id, connection) in state.connections {
            guard let deadline = Self.deadline(of: connection), deadline <= now else { continue }
            close(connection.fd)
            state.connections[id] = nil
        }
    }

    /// The end of the loop: closes every socket, fails every waiter, cancels every handler.
    private func shutDown() {
        executor.close()
        var resumptions: [@Sendable () -> Void] = []
        state.withLock { state in
            for id in Array(state.connections.keys) {
                guard var connection = state.connections[id] else { continue }
                _ = shutdown(connection.fd, Int32(SHUT_RDWR))
                _close(&connection, state: &state, resumptions: &resumptions)
            }
            if case .running(let listenFD, _, _, let wakeRead, let wakeWrite) = state.phase {
                for fd in [listenFD, wakeRead, wakeWrite] { close(fd) }
            }
            state.phase = .stopped
            state.acceptPausedUntil = nil
        }
        for resume in resumptions { resume() }
    }
}
