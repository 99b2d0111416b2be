/// How a resource of `length` bytes is cut into chunks of `chunkSize` bytes (the last one short).
struct ChunkLayout: Sendable, Hashable {
    /// At least 1.
    let chunkSize: Int
    /// At least 0.
    let length: Int

    init(chunkSize: Int, length: Int) {
        self.chunkSize = max(1, chunkSize)
        self.length = max(0, length)
    }

    /// The number of chunks.
    var chunkCount: Int { length == 0 ? 0 : (length - 1) / chunkSize + 1 }

    /// The bytes of chunk `index` (empty when `index` is outside the resource).
    func byteRange(ofChunk index: Int) -> Range<Int> {
        guard index >= 0, index < chunkCount else { return 0..<0 }
        let start = index * chunkSize  // < length, so no overflow
        return start..<(start + min(chunkSize, length - start))
    }

    /// The bytes of the chunks `chunks` (which must lie inside the resource).
    func byteRange(ofChunks chunks: Range<Int>) -> Range<Int> {
        guard !chunks.isEmpty else { return 0..<0 }
        return byteRange(ofChunk: chunks.lowerBound).lowerBound..<byteRange(ofChunk: chunks.upperBound - 1).upperBound
    }

    /// The chunks holding the bytes `bytes` (a non-empty range inside the resource).
    func chunks(covering bytes: Range<Int>) -> Range<Int> {
        guard !bytes.isEmpty else { return 0..<0 }
        return (bytes.lowerBound / chunkSize)..<((bytes.upperBound - 1) / chunkSize + 1)
    }
}
