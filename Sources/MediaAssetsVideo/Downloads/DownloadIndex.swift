import Foundation

/// The downloads' index file: every download's record, in one JSON document replaced atomically.
///
/// Each download's directory also holds its own record (`record.json`), so a damaged or lost index is
/// rebuilt from the directories (see `DownloadStore`).
struct DownloadIndex: Codable, Hashable, Sendable {
    /// Bumped when the format changes.
    static let currentVersion = 1

    var version = currentVersion
    /// The number the next download's id takes.
    var nextNumber = 1
    var downloads: [DownloadRecord] = []

    /// Why bytes are not an index to trust.
    enum DecodingError: Error, Equatable {
        case unreadable(String)
        case unsupportedVersion(Int)
        case unsoundRecord(id: String)
        case duplicateID(String)
    }

    /// Parses and checks an index: any record that could name a path outside its directory, a duplicate
    /// id or an impossible number makes the whole index untrusted (it is then rebuilt from the disk).
    static func decode(_ data: Data) throws(DecodingError) -> DownloadIndex {
        let index: DownloadIndex
        do {
            index = try JSONDecoder().decode(DownloadIndex.self, from: data)
        } catch {
            throw .unreadable(String(describing: error).prefix(200).description)
        }
        guard index.version == currentVersion else { throw .unsupportedVersion(index.version) }
        var seen: Set<String> = []
        for record in index.downloads {
            guard record.isSound else { throw .unsoundRecord(id: String(record.id.prefix(40))) }
            guard seen.insert(record.id).inserted else { throw .duplicateID(record.id) }
        }
        guard index.nextNumber > 0 else { throw .unreadable("nextNumber \(index.nextNumber)") }
        return index
    }

    /// Parses one download's own record, with the same checks.
    static func decodeRecord(_ data: Data) -> DownloadRecord? {
        guard let record = try? JSONDecoder().decode(DownloadRecord.self, from: data), record.isSound else {
            return nil
        }
        return record
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// `d` and 1 to 18 digits.
    static func isValidID(_ id: String) -> Bool {
        let digits = id.utf8.dropFirst()
        return id.utf8.first == UInt8(ascii: "d") && (1...18).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The number of an id (`d17` is 17).
    static func number(of id: String) -> Int? {
        isValidID(id) ? Int(id.dropFirst()) : nil
    }
}

/// Feeds arbitrary bytes to the download index's parser and record checks: it must return an index or
/// throw, never crash. The libFuzzer entry point of the parser (see `Fuzz/`).
@_spi(Fuzzing) public func fuzzVideoDownloadIndex(_ data: Data) {
    if let index = try? DownloadIndex.decode(data) {
        for record in index.downloads { _ = record.isSound }
        _ = try? index.encoded()
    }
    _ = DownloadIndex.decodeRecord(data)
}
