import Foundation

extension SampleOrigin {
    /// How often the wait helpers look at the log; short, since they stand in for the work being awaited.
    private static let pollInterval = Duration.milliseconds(2)

    /// Returns once `path` has received at least `count` requests (running or finished).
    ///
    /// - Throws: ``SampleOriginError/timedOut(condition:path:timeout:)`` after `timeout`, or
    ///   `CancellationError` when the task is cancelled.
    public func waitForRequests(path: String, count: Int, timeout: Duration = .seconds(90)) async throws {
        try await waitUntil("\(count) requests", path: path, timeout: timeout) {
            requestCount(for: path) >= count
        }
    }

    /// Returns once at least `count` requests to `path` are in flight at the same time (for example parked at
    /// a gate).
    ///
    /// - Throws: ``SampleOriginError/timedOut(condition:path:timeout:)`` after `timeout`.
    public func waitForInFlight(path: String, count: Int, timeout: Duration = .seconds(90)) async throws {
        try await waitUntil("\(count) requests in flight", path: path, timeout: timeout) {
            inFlight(for: path) >= count
        }
    }

    /// Returns once at least `count` requests to `path` have finished (answered, cut off or abandoned).
    ///
    /// - Throws: ``SampleOriginError/timedOut(condition:path:timeout:)`` after `timeout`.
    public func waitForFinishedRequests(path: String, count: Int, timeout: Duration = .seconds(90)) async throws {
        try await waitUntil("\(count) finished requests", path: path, timeout: timeout) {
            requests(for: path).filter(\.isFinished).count >= count
        }
    }

    /// Returns once a request to `path` was recorded with ``RequestRecord/clientClosedEarly``.
    ///
    /// - Throws: ``SampleOriginError/timedOut(condition:path:timeout:)`` after `timeout`.
    public func waitUntilClientClosed(path: String, timeout: Duration = .seconds(90)) async throws {
        try await waitUntil("a client closing early", path: path, timeout: timeout) {
            requests(for: path).contains { $0.clientClosedEarly }
        }
    }

    /// How many times longer than asked every wait runs: `MEDIAASSETS_TEST_TIMEOUT_SCALE` in the environment (a
    /// number of at least 1; 1 when unset). A build under a sanitizer runs many times slower, so its runs set it:
    /// a bound that catches what never happens in a plain build would otherwise catch what is merely slow.
    package static let timeoutScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["MEDIAASSETS_TEST_TIMEOUT_SCALE"],
            let scale = Double(text), scale.isFinite
        else { return 1 }
        return max(1, scale)
    }()

    /// Polls `condition` until it holds, bounded by `timeout` times ``timeoutScale``.
    ///
    /// The default bound (90 s) is long because callers share the cooperative thread pool with other
    /// work: a poll can be delayed by seconds on a busy 2-core machine. It catches what never
    /// happens, not what is slow.
    private func waitUntil(
        _ description: String,
        path: String,
        timeout: Duration,
        _ condition: () -> Bool
    ) async throws {
        let timeout = timeout * Self.timeoutScale
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw SampleOriginError.timedOut(condition: description, path: Self.normalized(path), timeout: timeout)
            }
            try await Task.sleep(for: Self.pollInterval)
        }
    }
}
