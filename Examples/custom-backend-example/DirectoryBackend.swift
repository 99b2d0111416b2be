import Dispatch
import Foundation
import MediaAssets
import Synchronization

/// A cache backend as an app would write its own: one file per entry in a directory of its own,
/// counting the calls the manager makes.
///
/// What `CacheBackend` asks of every implementation, and how this one meets it:
/// - Keys are opaque: a file is named by a hash of the key, and the full key is stored inside
///   and compared on read, so a hash collision is a miss and no key ever becomes a path.
/// - A store writes a temporary file and renames it into place: a reader never sees half an entry.
/// - An unreadable or corrupt file is a miss (and is removed); an expired entry is a miss.
/// - File work runs on the backend's own queue, not on the caller's executor.
/// - It has no size limit, so it never evicts; a real one would sweep least recently used files.
final class DirectoryBackend: CacheBackend {
    /// How often the manager called each method.
    struct CallCounts: Sendable {
        var reads = 0
        var hits = 0
        var stores = 0
        var removes = 0
    }

    /// What a file holds before the bytes.
    private struct Header: Codable {
        var key: String
        var metadata: CacheMetadata
    }

    let directory: URL
    private let counts = Mutex(CallCounts())
    private let queue = DispatchQueue(label: "custom-backend-example.DirectoryBackend", attributes: .concurrent)

    /// Creates the backend, creating `directory` if needed.
    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The calls counted so far.
    var callCounts: CallCounts { counts.withLock { $0 } }

    // MARK: CacheBackend

    func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        let file = fileURL(for: key)
        let entry = try await perform { () -> CacheEntry? in
            guard let contents = try? Data(contentsOf: file) else { return nil }
            guard let entry = Self.decode(contents, expectedKey: key) else {
                try? FileManager.default.removeItem(at: file)  // corrupt: a miss, and gone
                return nil
            }
            if entry.isExpired(at: Date()) {
                try? FileManager.default.removeItem(at: file)
                return nil
            }
            return entry
        }
        counts.withLock {
            $0.reads += 1
            if entry != nil { $0.hits += 1 }
        }
        return entry
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let file = fileURL(for: key)
        let header = try JSONEncoder().encode(Header(key: key.rawValue, metadata: entry.metadata))
        var contents = Data()
        withUnsafeBytes(of: UInt32(header.count).bigEndian) { contents.append(contentsOf: $0) }
        contents.append(header)
        contents.append(entry.data)
        let finished = contents
        try await perform {
            // .atomic writes a temporary file and renames it over the old one.
            try finished.write(to: file, options: .atomic)
        }
        counts.withLock { $0.stores += 1 }
    }

    func removeEntry(forKey key: CacheKey) async throws {
        let file = fileURL(for: key)
        try await perform {
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
        counts.withLock { $0.removes += 1 }
    }

    func removeAll() async throws {
        let directory = directory
        try await perform {
            for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            where file.pathExtension == "entry" {
                try FileManager.default.removeItem(at: file)
            }
        }
    }

    func statistics() async -> CacheStatistics {
        let directory = directory
        let sizes =
            (try? await perform { () -> [Int] in
                let files = try FileManager.default.contentsOfDirectory(
                    at: directory, includingPropertiesForKeys: [.fileSizeKey]
                )
                return files.filter { $0.pathExtension == "entry" }.map {
                    (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
                }
            }) ?? []
        let counts = callCounts
        var statistics = CacheStatistics()
        statistics.hits = counts.hits
        statistics.misses = counts.reads - counts.hits
        statistics.writes = counts.stores
        statistics.count = sizes.count
        statistics.bytes = sizes.reduce(0, +)
        statistics.cost = statistics.bytes
        return statistics
    }

    // MARK: Files

    /// `<directory>/<64-bit FNV-1a of the key, hex>.entry`.
    private func fileURL(for key: CacheKey) -> URL {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.rawValue.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let name = String(hash, radix: 16)
        return directory.appendingPathComponent(String(repeating: "0", count: 16 - name.count) + name + ".entry")
    }

    /// The entry in `contents`, or nil if the file is damaged or holds another key.
    private static func decode(_ contents: Data, expectedKey key: CacheKey) -> CacheEntry? {
        guard contents.count >= 4 else { return nil }
        let headerLength = contents.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let headerEnd = contents.startIndex + 4 + headerLength
        guard headerEnd <= contents.endIndex,
            let header = try? JSONDecoder().decode(Header.self, from: contents[(contents.startIndex + 4)..<headerEnd]),
            header.key == key.rawValue
        else { return nil }
        return CacheEntry(data: Data(contents[headerEnd...]), metadata: header.metadata)
    }

    /// Runs `work` on the backend's queue and returns its result.
    private func perform<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
