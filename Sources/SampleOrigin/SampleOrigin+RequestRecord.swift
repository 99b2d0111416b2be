import Foundation

extension SampleOrigin {
    /// One request as the origin saw and answered it.
    ///
    /// A record is written when the request head has been read, so requests still waiting (at a gate, in
    /// latency, mid-body) are visible; `endTime` is `nil` until the exchange has ended.
    public struct RequestRecord: Sendable, Equatable {
        /// Increases with every request the origin accepts; orders records across paths.
        package let sequenceNumber: Int
        /// Identifies the TCP connection; equal values mean the requests shared one keep-alive connection.
        package let connectionID: Int
        /// The request method, for example `GET` or `HEAD`.
        public let method: String
        /// The path the request was logged under (the registered path, without query when none matched).
        public let path: String
        /// The request target exactly as sent, including any query.
        package let target: String
        /// Request headers with lowercased names; repeated headers are joined with ", ".
        public let headers: [String: String]
        /// When the request head had been read.
        package let startTime: Date
        /// The status sent; `nil` while waiting, or when the exchange ended without a response (stop).
        ///
        /// Set just before the response head is written. The body fields below are final only once
        /// ``isFinished`` is true: a client can hold the whole response a moment before the origin has
        /// recorded it, so await ``SampleOrigin/waitForFinishedRequests(path:count:timeout:)`` first.
        public internal(set) var status: Int?
        /// Body bytes written to the socket (0 for HEAD and 304).
        public internal(set) var bodyBytesSent: Int
        /// Whether every body byte that was due was sent.
        public internal(set) var bodyCompleted: Bool
        /// Whether the client hung up before the response was completely sent.
        public internal(set) var clientClosedEarly: Bool
        /// When the exchange ended; `nil` while it is still running.
        public internal(set) var endTime: Date?

        /// Whether the exchange has ended (answered, cut off, or abandoned at stop).
        public var isFinished: Bool { endTime != nil }
    }
}
