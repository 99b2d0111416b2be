extension SampleOrigin {
    /// Every request logged under `path` since start or the last ``resetLog()``, oldest first.
    public func requests(for path: String) -> [RequestRecord] {
        let path = Self.normalized(path)
        return state.withLock { $0.log[path] ?? [] }
    }

    /// How many requests `path` has received (including ones still running).
    public func requestCount(for path: String) -> Int {
        let path = Self.normalized(path)
        return state.withLock { $0.log[path]?.count ?? 0 }
    }

    /// How many requests have been received on all paths.
    public var totalRequestCount: Int {
        state.withLock { $0.log.values.reduce(0) { $0 + $1.count } }
    }

    /// Requests to `path` being handled right now (waiting at a gate, in latency or sending).
    public func inFlight(for path: String) -> Int {
        let path = Self.normalized(path)
        return state.withLock { $0.inFlightByPath[path] ?? 0 }
    }

    /// The largest number of requests in flight at once on all paths together.
    public var peakInFlight: Int {
        state.withLock { $0.peakInFlight }
    }

    /// The largest number of requests to `path` in flight at once.
    public func peakInFlight(for path: String) -> Int {
        let path = Self.normalized(path)
        return state.withLock { $0.peakInFlightByPath[path] ?? 0 }
    }

    /// Requests rejected before they had a path (400, 413, 431, 505, and 503 over the connection bound),
    /// which are not in the log.
    package var rejectedRequestCount: Int {
        let rejected = server.rejectedRequestCount
        return rejected - state.withLock { $0.rejectedBaseline }
    }

    /// TCP connections accepted since creation; fewer connections than requests shows keep-alive at work.
    package var acceptedConnectionCount: Int { server.acceptedConnectionCount }

    /// Connections open right now.
    package var activeConnectionCount: Int { server.activeConnectionCount }

    /// Threads the origin runs (its server's polling thread); 0 after ``stop()``.
    package var runningThreadCount: Int { server.runningThreadCount }

    /// Clears the log and the peak counters (peaks restart from what is in flight now).
    ///
    /// Requests still running when the log is reset finish without being recorded.
    public func resetLog() {
        let rejected = server.rejectedRequestCount
        state.withLock { state in
            state.log = [:]
            state.logEpoch += 1
            state.rejectedBaseline = rejected
            state.peakInFlight = state.inFlight
            state.peakInFlightByPath = state.inFlightByPath.filter { $0.value > 0 }
        }
    }
}
