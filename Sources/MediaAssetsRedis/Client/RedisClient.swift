import Dispatch
import Foundation

/// A client of one Redis server: a bounded pool of shared connections with timeouts and reconnect
/// backoff.
///
/// A command is written on the caller's thread (a non-blocking send) and its task waits for the
/// reply without holding a thread: each connection's reader thread reads the replies and resumes
/// the waiting tasks, one wake-up per reply. Concurrent commands share the connections, pipelined;
/// commands sent together with `pipeline(_:)` share one write and one round trip. Connecting, which
/// blocks up to the connect timeout, runs on a dispatch queue, never on the caller's executor.
///
/// ```swift
/// let client = try RedisClient(address: "redis://127.0.0.1:6379")
/// try await client.send(RESPCommand("SET", "greeting", "hello"))
/// ```
package final class RedisClient: Sendable {
    /// The server.
    package let endpoint: RedisEndpoint
    /// Credentials, pool size and timeouts.
    package let options: RedisClientOptions
    let pool: RedisConnectionPool

    /// Creates a client; no connection is opened until the first command.
    package init(endpoint: RedisEndpoint, options: RedisClientOptions = RedisClientOptions()) {
        self.endpoint = endpoint
        self.options = options
        self.pool = RedisConnectionPool(endpoint: endpoint, options: options)
    }

    /// Creates a client for a `redis://` or `unix://` address, taking its credentials and database.
    package convenience init(address: String) throws(RedisError) {
        let parsed = try RedisAddress(address)
        self.init(endpoint: parsed.endpoint, options: RedisClientOptions(address: parsed))
    }

    /// Sends one command; an error reply is thrown as `RedisError.serverError`.
    @discardableResult
    package func send(_ command: RESPCommand) async throws(RedisError) -> RESPValue {
        let reply = try await pipeline([command])[0]
        if case .error(let message) = reply {
            throw .serverError(endpoint: endpoint.description, command: command.name, message: message)
        }
        return reply
    }

    /// Sends `commands` in one write and returns their replies in order; error replies are values.
    package func pipeline(_ commands: [RESPCommand]) async throws(RedisError) -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        return try await pool.send(commands)
    }

    /// Closes the connections no command is waiting on; the client reconnects on its next command.
    package func closeIdleConnections() { pool.closeIdle() }
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
