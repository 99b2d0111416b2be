import Foundation

/// Failures of ``HTTPServer``: socket set-up, the thread start, and writes to a connection that is gone.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A socket call failed; carries the call's name and `errno`.
    case socketCallFailed(operation: String, errno: Int32)
    /// ``HTTPServer/start()`` was called while the server was already listening on `port`.
    case alreadyRunning(port: Int)
    /// `pthread_create` refused to start the server's thread; carries its error code.
    case threadStartFailed(code: Int32)
    /// The client hung up, the connection failed, or the server stopped before the write.
    case connectionClosed

    /// A sentence a person can act on.
    public var description: String {
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
    public var errorDescription: String? { description }
}
