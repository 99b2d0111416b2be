/// The bytes a connection has received and not used yet, cut into request heads as they complete.
///
/// Keeps the bytes of pipelined requests, skips request bodies (GET and HEAD rarely have one; larger
/// ones are refused rather than read) and resumes the search for the blank line where it stopped, so a
/// head arriving byte by byte is not rescanned from the start.
struct RequestHeadBuffer {
    /// What the buffered bytes hold now.
    enum Next {
        case request(HTTPRequest)
        /// More bytes are needed.
        case incomplete
        /// The bytes are not a request the server accepts; answer `status` and close.
        case rejected(status: Int, reason: String)
    }

    private static let headTerminator: [UInt8] = [13, 10, 13, 10]

    let maximumHeadSize: Int
    let maximumBodySize: Int
    private(set) var bytes: [UInt8] = []
    /// Where the search for the blank line resumes.
    private var scannedUpTo = 0
    /// Body bytes of the last request still to drop.
    private var bodyToSkip = 0

    init(maximumHeadSize: Int, maximumBodySize: Int) {
        self.maximumHeadSize = maximumHeadSize
        self.maximumBodySize = maximumBodySize
    }

    /// Whether no unused byte is buffered.
    var isEmpty: Bool { bytes.isEmpty }

    /// How many more bytes the buffer takes before the server stops reading (a head cannot be longer).
    var room: Int { max(0, maximumHeadSize + Self.headTerminator.count + 1 - bytes.count) }

    mutating func append(_ received: ArraySlice<UInt8>) {
        bytes.append(contentsOf: received)
    }

    /// Reads from `fd` what fits (at most 64 KiB); returns what the read did.
    mutating func receive(from fd: Int32) -> Socket.Transfer {
        let limit = bodyToSkip > 0 ? min(64 * 1024, max(1, bodyToSkip)) : min(64 * 1024, max(1, room))
        return Socket.receive(fd, appendingTo: &bytes, limit: limit)
    }

    /// The next request if its head is complete.
    mutating func next() -> Next {
        if bodyToSkip > 0 {
            let dropped = min(bodyToSkip, bytes.count)
            bytes.removeFirst(dropped)
            bodyToSkip -= dropped
            if bodyToSkip > 0 { return .incomplete }
        }
        // RFC 9112 2.2: a server should ignore empty lines received before a request line.
        if scannedUpTo == 0, let firstContent = bytes.firstIndex(where: { $0 != 13 && $0 != 10 }), firstContent > 0 {
            bytes.removeFirst(firstContent)
        } else if scannedUpTo == 0, bytes.allSatisfy({ $0 == 13 || $0 == 10 }) {
            bytes.removeAll()
        }
        guard let end = headEnd() else {
            if bytes.count > maximumHeadSize { return .rejected(status: 431, reason: "request head too large") }
            return .incomplete
        }
        guard end <= maximumHeadSize else { return .rejected(status: 431, reason: "request head too large") }
        let parsed: HTTPRequest
        do {
            parsed = try HTTPRequest(parsing: bytes[0..<end])
        } catch {
            if case .unsupportedVersion = error { return .rejected(status: 505, reason: "\(error)") }
            return .rejected(status: 400, reason: "\(error)")
        }
        bytes.removeFirst(end + Self.headTerminator.count)
        scannedUpTo = 0
        guard parsed.contentLength <= maximumBodySize else {
            return .rejected(status: 413, reason: "request body too large")
        }
        bodyToSkip = parsed.contentLength
        let dropped = min(bodyToSkip, bytes.count)
        bytes.removeFirst(dropped)
        bodyToSkip -= dropped
        return .request(parsed)
    }

    /// The offset of the blank line ending the head, if buffered.
    private mutating func headEnd() -> Int? {
        guard bytes.count >= Self.headTerminator.count else { return nil }
        var index = max(0, scannedUpTo - (Self.headTerminator.count - 1))
        while index + Self.headTerminator.count <= bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index
            }
            index += 1
        }
        scannedUpTo = bytes.count
        return nil
    }
}
