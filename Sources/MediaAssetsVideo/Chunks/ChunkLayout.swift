import Foundation
import MediaAssets

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

/// One chunk of one resource: the key of the fetch registered for it.
struct ChunkID: Sendable, Hashable {
    let resource: CacheKey
    let index: Int
}

extension Range<Int> {
    /// The contiguous runs of the ascending `indices`.
    static func runs(of indices: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for index in indices {
            if let last = runs.last, last.upperBound == index {
                runs[runs.count - 1] = last.lowerBound..<(index + 1)
            } else {
                runs.append(index..<(index + 1))
            }
        }
        return runs
    }
}

/// The `<key>#meta` record: content info plus the chunk size the chunks were cut with, as JSON.
struct ChunkRecord: Codable, Hashable {
    /// Bumped when the layout of the record or of the chunks changes.
    static let currentVersion = 1

    var version: Int
    var info: VideoContentInfo
    var chunkSize: Int

    init(info: VideoContentInfo, chunkSize: Int) {
        self.version = Self.currentVersion
        self.info = info
        self.chunkSize = chunkSize
    }

    func encoded() throws -> Data { try JSONEncoder().encode(self) }

    /// Decodes a record; anything unreadable, of another version, or with impossible sizes is `nil`.
    static func decode(_ data: Data) -> ChunkRecord? {
        guard let record = try? JSONDecoder().decode(ChunkRecord.self, from: data),
            record.version == currentVersion, record.chunkSize > 0, record.info.length >= 0
        else { return nil }
        return record
    }
}
