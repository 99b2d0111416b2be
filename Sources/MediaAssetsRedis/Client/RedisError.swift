import Foundation
import MediaAssets

/// What went wrong talking to Redis, with what a person needs to act on it.
public enum RedisError: Equatable, MediaAssetsError {
    /// The connection could not be opened (refused, unreachable, name not resolved).
    case connectFailed(endpoint: String, reason: String)
    /// The server did not answer within the configured time.
    case timedOut(endpoint: String, operation: String, milliseconds: Int)
    /// The server closed the connection or the socket failed mid-command.
    case connectionLost(endpoint: String, reason: String)
    /// The server's bytes are not a RESP reply.
    case protocolViolation(endpoint: String, offset: Int, reason: String)
    /// A reply of a type or shape the command does not produce.
    case unexpectedReply(endpoint: String, command: String, reply: String)
    /// The server answered with an error line.
    case serverError(endpoint: String, command: String, message: String)
    /// AUTH was refused.
    case authenticationFailed(endpoint: String, user: String?, message: String)
    /// The endpoint failed recently; no new connection is tried until its backoff has passed.
    case unavailable(endpoint: String, retryInMilliseconds: Int, lastError: String)
    /// A Redis Cluster slot has no reachable node.
    case slotUnavailable(slot: Int, reason: String)
    /// A cluster kept redirecting a command.
    case tooManyRedirects(command: String, slot: Int, count: Int)
    /// A `redis://` or `unix://` address that cannot be used.
    case invalidAddress(String, reason: String)

    public var description: String {
        switch self {
        case .connectFailed(let endpoint, let reason):
            return "Connecting to Redis at \(endpoint) failed: \(reason). Is redis-server running there "
                + "(Debian package redis-server)?"
        case .timedOut(let endpoint, let operation, let milliseconds):
            return "Redis at \(endpoint) did not answer \(operation) within \(milliseconds) ms; the connection was "
                + "dropped. Raise RedisClientOptions timeouts if the server is slow rather than stuck."
        case .connectionLost(let endpoint, let reason):
            return "The connection to Redis at \(endpoint) was lost: \(reason); the next command reconnects."
        case .protocolViolation(let endpoint, let offset, let reason):
            return "\(endpoint) answered bytes that are not RESP (at byte \(offset) of the stream: \(reason)); "
                + "check that the address is a Redis server."
        case .unexpectedReply(let endpoint, let command, let reply):
            return "Redis at \(endpoint) answered \(command) with an unexpected \(reply)."
        case .serverError(let endpoint, let command, let message):
            return "Redis at \(endpoint) refused \(command): \(message.prefix(300))"
        case .authenticationFailed(let endpoint, let user, let message):
            return
                "Redis at \(endpoint) refused AUTH\(user.map { " for user '\($0)'" } ?? ""): \(message.prefix(300)). "
                + "Check the password (requirepass) or the ACL user."
        case .unavailable(let endpoint, let retry, let lastError):
            return "Redis at \(endpoint) is unavailable (\(lastError)); reconnecting in \(retry) ms."
        case .slotUnavailable(let slot, let reason):
            return "Redis Cluster slot \(slot) has no reachable node: \(reason)."
        case .tooManyRedirects(let command, let slot, let count):
            return "Redis Cluster redirected \(command) for slot \(slot) \(count) times; the cluster is resharding "
                + "or misconfigured."
        case .invalidAddress(let address, let reason):
            return "'\(address.prefix(200))' is not a usable Redis address: \(reason). Use redis://[user:password@]"
                + "host:port[/db] or unix:///path/to/redis.sock."
        }
    }

    /// Whether the failure is of the transport (the server may be gone), not of the command.
    public var isConnectionFailure: Bool {
        switch self {
        case .connectFailed, .timedOut, .connectionLost, .protocolViolation, .unavailable, .slotUnavailable:
            return true
        default:
            return false
        }
    }
}
