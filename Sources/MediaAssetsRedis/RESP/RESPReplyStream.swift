/// Bytes read from a socket, and the complete replies at their front.
///
/// Appended bytes are kept until a whole reply has arrived; consumed bytes are dropped in bulk, so
/// a large reply is copied once into the buffer and once into its value.
package struct RESPReplyStream {
    private var buffer: [UInt8] = []
    private var readOffset = 0
    /// Bytes consumed before the current buffer: error offsets count from the start of the stream.
    private var discarded = 0

    package init() {}

    /// Adds received bytes; returns the replies now complete.
    @discardableResult
    package mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) throws(RESPParser.Violation) -> [RESPValue] {
        buffer.append(contentsOf: bytes)
        var replies: [RESPValue] = []
        while let reply = try next() { replies.append(reply) }
        return replies
    }

    /// Adds bytes from a raw buffer.
    package mutating func append(raw bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    package mutating func next() throws(RESPParser.Violation) -> RESPValue? {
        guard readOffset < buffer.count else {
            compact()
            return nil
        }
        let start = readOffset
        let outcome: Result<(value: RESPValue, end: Int)?, RESPParser.Violation> = buffer.withUnsafeBytes { raw in
            do throws(RESPParser.Violation) {
                return .success(try RESPParser.parse(raw, from: start))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let parsed?):
            readOffset = parsed.end
            if readOffset == buffer.count { compact() }
            return parsed.value
        case .success(nil):
            if readOffset > 64 << 10 { compact() }
            return nil
        case .failure(var violation):
            violation.offset += discarded
            throw violation
        }
    }

    /// Whether bytes of an unfinished reply are buffered.
    package var hasPartialReply: Bool { readOffset < buffer.count }

    private mutating func compact() {
        discarded += readOffset
        buffer.removeSubrange(0..<readOffset)
        readOffset = 0
    }
}
