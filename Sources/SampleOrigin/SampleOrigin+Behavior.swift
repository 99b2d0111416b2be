extension SampleOrigin {
    /// Fault and timing injection for one path of a ``SampleOrigin``.
    ///
    /// Set with ``SampleOrigin/setBehavior(_:_:)`` at any time, also while requests are running. A request
    /// takes a snapshot of the behaviour when it arrives; only the gate is watched live, so removing the gate
    /// lets waiting requests go. The steps run in this order: count down `failNext`, wait at the gate, wait
    /// `latency`, then answer (failure, 404, or the resource with the body rules below).
    ///
    /// Body rules apply to answers that carry the resource's bytes (200 and 206):
    /// `closeAfterBodyBytes`, `stallAfterBodyBytes`, `contentLengthOffset` and `throttle`.
    public struct Behavior: Sendable, Equatable {
        /// Sends the body in pieces with a pause between them, so a client can cancel mid-body.
        public struct Throttle: Sendable, Equatable {
            /// Bytes per piece; values below 1 count as 1.
            public var pieceSize: Int
            /// The pause after each piece except the last.
            public var delay: Duration

            /// Creates a throttle sending `pieceSize` bytes, then pausing for `delay`.
            public init(pieceSize: Int, delay: Duration) {
                self.pieceSize = pieceSize
                self.delay = delay
            }
        }

        /// Extra wait before the response head is sent (after the gate opens).
        public var latency: Duration
        /// How many of the next requests fail with `failStatus`; counts down as requests arrive.
        public var failNext: Int
        /// The status of injected failures (for example 500, 503 or 429).
        public var failStatus: Int
        /// A `Retry-After` value in seconds, sent with injected failures when set.
        public var retryAfter: Int?
        /// Sends only this many body bytes, then closes the connection (Content-Length stays truthful).
        public var closeAfterBodyBytes: Int?
        /// Sends only this many body bytes, then sends nothing more until the client closes the connection
        /// (logged as ``RequestRecord/clientClosedEarly``) or the origin stops: a transfer stalled mid-body.
        ///
        /// Unlike a throttle, whose body ends after a while, the body never completes: a test that cancels the
        /// client mid-body can take as long as it needs without the transfer finishing first.
        public var stallAfterBodyBytes: Int?
        /// Declares `Content-Length` as the true length plus this offset, sends the true body, then closes.
        public var contentLengthOffset: Int
        /// Answers every GET with 200 and the whole body, as a server without Range support does.
        public var ignoreRange: Bool
        /// Sends the body slowly in pieces when set.
        public var throttle: Throttle?
        /// Holds requests (accepted and logged) until ``SampleOrigin/release(_:)`` or until the gate is removed.
        public var gated: Bool

        /// Creates a behaviour; the defaults describe a healthy, fast origin.
        public init(
            latency: Duration = .zero,
            failNext: Int = 0,
            failStatus: Int = 500,
            retryAfter: Int? = nil,
            closeAfterBodyBytes: Int? = nil,
            stallAfterBodyBytes: Int? = nil,
            contentLengthOffset: Int = 0,
            ignoreRange: Bool = false,
            throttle: Throttle? = nil,
            gated: Bool = false
        ) {
            self.latency = latency
            self.failNext = failNext
            self.failStatus = failStatus
            self.retryAfter = retryAfter
            self.closeAfterBodyBytes = closeAfterBodyBytes
            self.stallAfterBodyBytes = stallAfterBodyBytes
            self.contentLengthOffset = contentLengthOffset
            self.ignoreRange = ignoreRange
            self.throttle = throttle
            self.gated = gated
        }

        /// A healthy origin: no faults, no waits.
        public static let normal = Behavior()
    }
}
