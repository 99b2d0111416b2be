/// How a client connects: credentials, database, pool size, timeouts and reconnect backoff.
public struct RedisClientOptions: Sendable, Hashable {
    /// The ACL user for `AUTH user password`; nil sends `AUTH password` (the `default` user).
    public var user: String?
    /// The password; nil sends no AUTH.
    public var password: String?
    /// The database selected on every new connection (not allowed by Redis Cluster except 0).
    public var database: Int
    /// The most connections open to one server. Concurrent commands share them, pipelined: a new
    /// connection opens only when every open one has a command waiting for its reply.
    public var poolSize: Int
    /// How long opening a connection (and its handshake) may take.
    public var connectTimeout: Duration
    /// How long a command may wait for its reply before the connection is dropped (every command
    /// waiting on it then fails).
    public var readTimeout: Duration
    /// The first wait after a failed connect; each further failure doubles it up to `maximumBackoff`.
    public var initialBackoff: Duration
    /// The longest wait between connect attempts to a failing server.
    public var maximumBackoff: Duration

    /// Creates options; the defaults suit a server on the same network.
    public init(
        user: String? = nil,
        password: String? = nil,
        database: Int = 0,
        poolSize: Int = 8,
        connectTimeout: Duration = .seconds(1),
        readTimeout: Duration = .seconds(2),
        initialBackoff: Duration = .milliseconds(50),
        maximumBackoff: Duration = .seconds(2)
    ) {
        self.user = user
        self.password = password
        self.database = max(0, database)
        self.poolSize = max(1, poolSize)
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = max(initialBackoff, maximumBackoff)
    }

    /// Options with the credentials and database of a parsed address.
    package init(address: RedisAddress) {
        self.init(user: address.user, password: address.password, database: address.database)
    }
}

extension Duration {
    /// The duration in whole milliseconds, at least 1 for a positive duration.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
        return milliseconds == 0 && attoseconds > 0 ? 1 : milliseconds
    }
}
