import Dispatch
import Foundation

/// A client of one Redis server: a bounded connection pool with timeouts and reconnect backoff.
///
/// Every command runs on the client's dispatch queue (socket I/O blocks, bounded by the timeouts),
/// never on the caller's executor. Commands sent together with `pipeline(_:)` share one round trip.
///
/// ```swift
/// let client = try RedisClient(address: "redis://127.0.0.1:6379")
/// try await client.send(RESPCommand("SET", "greeting", "hello"))
/// ```
public final class RedisClient: Sendable {
    /// The server.
    public let endpoint: RedisEndpoint
    /// Credentials, pool size and timeouts.
    public let options: RedisClientOptions
    let pool: RedisConnectionPool
    private let queue = DispatchQueue(label: "MediaAssets.RedisClient", attributes: .concurrent)

    /// Creates a client; no connection is opened until the first command.
    public init(endpoint: RedisEndpoint, options: RedisClientOptions = RedisClientOptions()) {
        self.endpoint = endpoint
        self.options = options
        self.pool = RedisConnectionPool(endpoint: endpoint, options: options)
    }

    /// Creates a client for a `redis://` or `unix://` address, taking its credentials and database.
    public convenience init(address: String) throws(RedisError) {
        let parsed = try RedisAddress(address)
        self.init(endpoint: parsed.endpoint, options: RedisClientOptions(address: parsed))
    }

    /// Sends one command; an error reply is thrown as `RedisError.serverError`.
    @discardableResult
    public func send(_ command: RESPCommand) async throws(RedisError) -> RESPValue {
        let reply = try await pipeline([command])[0]
        if case .error(let message) = reply {
            throw .serverError(endpoint: endpoint.description, command: command.name, message: message)
        }
        return reply
    }

    /// Sends `commands` in one write and returns their replies in order; error replies are values.
    public func pipeline(_ commands: [RESPCommand]) async throws(RedisError) -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        return try await onQueue { [pool] () throws(RedisError) in
            try pool.withConnection { connection throws(RedisError) in try connection.pipeline(commands) }
        }
    }

    /// Closes the idle connections; the client reconnects on its next command.
    public func closeIdleConnections() { pool.closeIdle() }

    func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws(RedisError) -> T) async throws(RedisError) -> T {
        try await queue.runBlocking(work)
    }
}

extension DispatchQueue {
    /// Runs blocking `work` on this queue and resumes the caller with its result.
    func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws(RedisError) -> T) async throws(RedisError) -> T
    {
        let result: Result<T, RedisError> = await withCheckedContinuation { continuation in
            self.async {
                continuation.resume(returning: Result { () throws(RedisError) in try work() })
            }
        }
        return try result.get()
    }
}
