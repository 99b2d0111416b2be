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

    /// Requests rejected before they had a path (400, 431, 505), which are not in the log.
    public var rejectedRequestCount: Int {
        state.withLock { $0.rejectedRequestCount }
    }

    /// TCP connections accepted since creation; fewer connections than requests shows keep-alive at work.
    public var acceptedConnectionCount: Int {
        state.withLock { $0.acceptedConnectionCount }
    }

    /// Connections open right now.
    public var activeConnectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Threads started by the origin and not yet joined (the accept thread counts); 0 after ``stop()``.
    public var runningThreadCount: Int {
        state.withLock { state in
            state.unjoinedThreads.count + (state.listener?.acceptThread == nil ? 0 : 1)
        }
    }

    /// Clears the log and the peak counters (peaks restart from what is in flight now).
    ///
    /// Requests still running when the log is reset finish without being recorded.
    public func resetLog() {
        state.withLock { state in
            state.log = [:]
            state.logEpoch += 1
            state.rejectedRequestCount = 0
            state.peakInFlight = state.inFlight
            state.peakInFlightByPath = state.inFlightByPath.filter { $0.value > 0 }
        }
    }
}
