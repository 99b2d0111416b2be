#if canImport(Glibc)
import Glibc
#endif

/// Reads request heads one after another from a connection, keeping bytes of pipelined requests.
struct RequestReader {
    /// What the next read produced.
    enum Next {
        case request(HTTPRequestHead)
        /// The client closed the connection (or stop() shut it down) between requests.
        case endOfStream
        /// The bytes are not a request the origin accepts; answer `status` and close.
        case rejected(status: Int, reason: String)
    }

    /// Request bodies are not used by GET or HEAD; larger ones are refused rather than read.
    static let maximumBodySize = 1 << 20
    private static let headTerminator: [UInt8] = [13, 10, 13, 10]

    let fd: Int32
    let maximumHeadSize: Int
    private var buffer: [UInt8] = []
    /// Where the search for the blank line resumes, so a slow head is not rescanned from the start.
    private var scannedUpTo = 0

    init(fd: Int32, maximumHeadSize: Int) {
        self.fd = fd
        self.maximumHeadSize = maximumHeadSize
    }

    /// Reads until a complete request head is buffered, then parses it and skips any request body.
    mutating func next() -> Next {
        while true {
            // RFC 9112 2.2: a server should ignore empty lines received before a request line.
            if scannedUpTo == 0, let firstContent = buffer.firstIndex(where: { $0 != 13 && $0 != 10 }),
                firstContent > 0
            {
                buffer.removeFirst(firstContent)
            }
            if let end = headEnd() {
                guard end <= maximumHeadSize else { return .rejected(status: 431, reason: "request head too large") }
                let parsed: HTTPRequestHead
                do {
                    parsed = try HTTPRequestHead(parsing: buffer[0..<end])
                } catch {
                    if case .unsupportedVersion = error { return .rejected(status: 505, reason: "\(error)") }
                    return .rejected(status: 400, reason: "\(error)")
                }
                buffer.removeFirst(end + Self.headTerminator.count)
                scannedUpTo = 0
                guard parsed.contentLength <= Self.maximumBodySize else {
                    return .rejected(status: 413, reason: "request body too large")
                }
                guard discardBody(length: parsed.contentLength) else { return .endOfStream }
                return .request(parsed)
            }
            if buffer.count > maximumHeadSize { return .rejected(status: 431, reason: "request head too large") }
            if Socket.receive(fd, appendingTo: &buffer, limit: 64 * 1024) == 0 { return .endOfStream }
        }
    }

    /// The offset of the blank line ending the head, if buffered.
    private mutating func headEnd() -> Int? {
        let terminator = Self.headTerminator
        guard buffer.count >= terminator.count else { return nil }
        var index = max(0, scannedUpTo - (terminator.count - 1))
        while index + terminator.count <= buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        scannedUpTo = buffer.count
        return nil
    }

    /// Drops `length` body bytes; returns `false` if the stream ended first.
    private mutating func discardBody(length: Int) -> Bool {
        var remaining = length
        while remaining > 0 {
            if buffer.isEmpty, Socket.receive(fd, appendingTo: &buffer, limit: 64 * 1024) == 0 { return false }
            let dropped = min(remaining, buffer.count)
            buffer.removeFirst(dropped)
            remaining -= dropped
        }
        return true
    }
}
