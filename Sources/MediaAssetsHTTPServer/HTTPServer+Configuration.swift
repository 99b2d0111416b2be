extension HTTPServer {
    /// The bounds of an ``HTTPServer``: every one holds under any load a client can make.
    public struct Configuration: Sendable {
        /// At most this many connections are served at once; one more is answered 503 and closed.
        public var maximumConnections: Int
        /// Request heads larger than this get 431 and the connection is closed.
        public var maximumHeadSize: Int
        /// Request bodies (skipped: GET and HEAD carry none) larger than this get 413.
        public var maximumRequestBodySize: Int
        /// A writer suspends while more than this many bytes of its connection wait to be sent: the
        /// most a response holds in the server beside the piece being written.
        public var writeBufferSize: Int
        /// A connection that sends nothing for this long between requests is closed.
        public var idleTimeout: Duration
        /// Whether handlers run on the server's own thread (a task executor) rather than the cooperative
        /// pool: a server that waits a lot (gates, latency, slow clients) then never needs a pool thread.
        public var runsHandlersOnServerThread: Bool

        /// Creates a configuration: 256 connections, 64 KiB heads, 1 MiB request bodies, 256 KiB of output
        /// per connection, two minutes of idleness, handlers on the server's thread.
        public init(
            maximumConnections: Int = 256, maximumHeadSize: Int = 64 << 10, maximumRequestBodySize: Int = 1 << 20,
            writeBufferSize: Int = 256 << 10, idleTimeout: Duration = .seconds(120),
            runsHandlersOnServerThread: Bool = true
        ) {
            self.maximumConnections = maximumConnections
            self.maximumHeadSize = maximumHeadSize
            self.maximumRequestBodySize = maximumRequestBodySize
            self.writeBufferSize = writeBufferSize
            self.idleTimeout = idleTimeout
            self.runsHandlersOnServerThread = runsHandlersOnServerThread
        }
    }
}
