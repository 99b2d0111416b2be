#if canImport(Glibc)
import Glibc
#endif

extension SampleOrigin {
    /// Binds 127.0.0.1 on an ephemeral port and starts accepting connections.
    ///
    /// After it returns, ``port``, ``baseURL`` and ``url(for:)`` are valid. A stopped origin can be started
    /// again (usually on a new port); registered resources and behaviours are kept.
    ///
    /// - Throws: ``SampleOriginError/alreadyRunning(port:)``, or
    ///   ``SampleOriginError/socketCallFailed(operation:errno:)`` and
    ///   ``SampleOriginError/threadStartFailed(code:)`` with the system's reason.
    public func start() throws(SampleOriginError) {
        if let running = state.withLock({ $0.listener?.port }) { throw .alreadyRunning(port: running) }
        let (listenFD, port) = try Socket.listenOnLoopback()
        try state.withLock { state throws(SampleOriginError) in
            guard state.listener == nil else {
                close(listenFD)
                throw .alreadyRunning(port: state.listener?.port ?? 0)
            }
            state.isStopping = false
            state.listener = OriginState.Listener(fd: listenFD, port: port, acceptThread: nil)
        }
        do {
            let thread = try NativeThread.start { [self] in acceptConnections(on: listenFD) }
            state.withLock { $0.listener?.acceptThread = thread }
        } catch {
            state.withLock { $0.listener = nil }
            close(listenFD)
            throw error
        }
    }

    /// Closes the listening socket and every connection, and joins every thread the origin started.
    ///
    /// Requests waiting at a gate, in latency or in a throttled body end at once without (the rest of) a
    /// response. When it returns nothing of the origin runs: connecting to the old port is refused and
    /// ``runningThreadCount`` and ``activeConnectionCount`` are 0. Calling it on a stopped origin does nothing.
    public func stop() {
        // shutdown() is used under the lock on purpose: it does not block, and only while the lock is held
        // is a registered descriptor sure not to be closed and reused by a connection thread.
        let stopping = state.withLock { state -> OriginState.Listener? in
            guard let listener = state.listener, !state.isStopping else { return nil }
            state.isStopping = true
            _ = shutdown(listener.fd, Int32(SHUT_RDWR))
            for fd in state.connections.values { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            return listener
        }
        guard let stopping else { return }
        wakeups.broadcast()
        if let acceptThread = stopping.acceptThread { NativeThread.join(acceptThread) }
        close(stopping.fd)
        // The accept thread has ended, so no connection thread can start any more.
        let threads = state.withLock { state -> Set<pthread_t> in
            let threads = state.unjoinedThreads
            state.unjoinedThreads = []
            state.finishedThreads = []
            return threads
        }
        for thread in threads { NativeThread.join(thread) }
        state.withLock { state in
            // Threads that ended during stop() listed themselves after the copy above; all are joined now.
            state.finishedThreads = []
            state.listener = nil
            state.connections = [:]
            state.isStopping = false
        }
    }

    /// The accept thread: takes connections and gives each its own thread until stop() shuts the socket down.
    private func acceptConnections(on listenFD: Int32) {
        while true {
            let fd = Socket.acceptConnection(on: listenFD)
            if fd < 0 {
                let code = errno
                if state.withLock({ $0.isStopping }) { return }
                if code == EINTR || code == ECONNABORTED { continue }
                // Out of descriptors or memory: back off briefly instead of spinning, and wake up for stop().
                _ = pause(for: .milliseconds(20))
                continue
            }
            Socket.disableNagle(fd)
            let overloaded = state.withLock { $0.connections.count >= $0.maximumConnections }
            if overloaded {
                let writer = ResponseWriter(fd: fd, pause: { _ in false })
                let refusal = ResponsePlan.text(status: 503, "too many connections")
                _ = writer.write(refusal, sendsBody: true, behavior: .normal, keepAlive: false)
                state.withLock { $0.rejectedRequestCount += 1 }
                Socket.closeGracefully(fd)
                continue
            }
            let connectionID = state.withLock { state -> Int? in
                guard !state.isStopping else { return nil }
                state.nextConnectionID += 1
                state.acceptedConnectionCount += 1
                state.connections[state.nextConnectionID] = fd
                return state.nextConnectionID
            }
            guard let connectionID else {
                close(fd)
                return
            }
            do {
                let thread = try NativeThread.start { [self] in serveConnection(fd: fd, id: connectionID) }
                state.withLock { _ = $0.unjoinedThreads.insert(thread) }
            } catch {
                state.withLock { _ = $0.connections.removeValue(forKey: connectionID) }
                close(fd)
            }
            joinFinishedThreads()
        }
    }

    /// Joins connection threads that have ended, so they do not pile up while the origin runs.
    private func joinFinishedThreads() {
        let finished = state.withLock { state -> [pthread_t] in
            let finished = state.finishedThreads
            state.finishedThreads = []
            state.unjoinedThreads.subtract(finished)
            return finished
        }
        for thread in finished { NativeThread.join(thread) }
    }

    /// Called last by a connection thread: forgets the connection, then closes its socket.
    func endConnection(fd: Int32, id: Int) {
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
        // Closed only after it left the registry, so stop() never shuts down a reused descriptor.
        Socket.closeGracefully(fd)
        // Listed only now, so the accept thread never waits on a join while this thread lingers in close.
        state.withLock { $0.finishedThreads.append(NativeThread.current) }
    }

    /// Waits for `duration` unless the origin stops first; returns `false` if it stopped.
    func pause(for duration: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: max(duration, .zero))
        while true {
            let generation = wakeups.currentGeneration
            if state.withLock({ $0.isStopping }) { return false }
            if ContinuousClock.now >= deadline { return true }
            wakeups.wait(whileGenerationIs: generation, until: deadline)
        }
    }
}
