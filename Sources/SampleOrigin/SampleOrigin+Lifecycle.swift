import Foundation
import MediaAssetsHTTPServer

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
        do {
            try server.start()
        } catch {
            switch error {
            case .alreadyRunning(let port): throw .alreadyRunning(port: port)
            case .socketCallFailed(let operation, let code): throw .socketCallFailed(operation: operation, errno: code)
            case .threadStartFailed(let code): throw .threadStartFailed(code: code)
            case .connectionClosed: throw .socketCallFailed(operation: "start", errno: 0)
            }
        }
    }

    /// Closes the listening socket and every connection, and joins the origin's thread.
    ///
    /// Requests waiting at a gate, in latency or in a throttled or stalled body end at once without (the rest
    /// of) a response, and are logged as finished. When it returns nothing of the origin runs: connecting to
    /// the old port is refused and `runningThreadCount` and `activeConnectionCount` are 0. Calling it on a
    /// stopped origin does nothing.
    public func stop() {
        state.withLock { $0.isStopping = true }
        server.stop()
        let endTime = Date()
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            // Requests still under way end here; their tasks, cancelled, find their records finished.
            for ticket in Array(state.active.values) {
                state._finish(ticket) { $0.endTime = endTime }
            }
            let waiters = state.gateWaiters.values.flatMap { $0.values.map(\.continuation) }
            state.gateWaiters = [:]
            state.isStopping = false
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }
}
