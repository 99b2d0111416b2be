import Foundation

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
