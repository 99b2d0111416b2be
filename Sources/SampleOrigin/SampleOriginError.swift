import Foundation

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
