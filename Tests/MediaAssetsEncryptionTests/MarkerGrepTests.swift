import Foundation
import MediaAssets
import MediaAssetsRedis
import MediaAssetsSQLite
import TestSupport
import Testing

@testable import MediaAssetsEncryption

/// Known markers go in through every byte backend — in the bytes, the key, the validators, the content
/// type — and the test greps what the backend left at rest: every file of the disk cache, the SQLite
/// database and its WAL, every Redis key and value. Unencrypted, the same grep finds them (the grep
/// can fail).
@Suite("Encryption at rest: no marker at rest")
struct MarkerGrepTests {
    static let markers = [
        "MARKER-BODY-7f3a", "MARKER-KEY-91c2", "MARKER-ETAG-5d0e", "MARKER-TYPE-c4b8", "MARKER-DATE-22aa",
    ]

    /// Stores entries carrying every marker, then reads them back.
    static func storeMarked(_ backend: any CacheBackend) async throws {
        for index in 0..<8 {
            let metadata = CacheMetadata(
                etag: "\"\(markers[2])-\(index)\"", lastModified: "\(markers[4]) Wed, 21 Oct 2015",
                contentType: "image/\(markers[3])")
            let body = Data((String(repeating: markers[0], count: 40) + "\(index)").utf8)
            let key = CacheKey("https://cdn.example/\(markers[1])/avatar-\(index).png")
            try await backend.store(CacheEntry(data: body, metadata: metadata), forKey: key)
            try await backend.store(CacheEntry(data: body), forKey: key.variant("circle(96)"))
            try await backend.store(CacheEntry(data: body), forKey: key.chunk(index))
        }
        let read = try #require(try await backend.entry(forKey: "https://cdn.example/\(markers[1])/avatar-3.png"))
        #expect(read.metadata.etag == "\"\(markers[2])-3\"" && read.metadata.contentType == "image/\(markers[3])")
    }

    /// The markers found in `bytes`.
    static func found(in bytes: Data) -> [String] {
        markers.filter { bytes.range(of: Data($0.utf8)) != nil }
    }

    /// Every file under `directory`, names included, as one blob.
    static func filesAtRest(_ directory: URL) throws -> Data {
        var blob = Data()
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            blob += Data(url.lastPathComponent.utf8)
            if let contents = try? Data(contentsOf: url) { blob += contents }
        }
        return blob
    }

    @Test(arguments: [true, false])
    func diskCacheFiles(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = try DiskCache(
            configuration: .tuned(directory: directory.appending("disk"), indexSnapshotMinimumCount: 1))
        let backend: any CacheBackend = encrypted ? EncryptedBackend(wrapping: disk, keys: TestKeys.ring()) : disk
        try await Self.storeMarked(backend)
        try await backend.pin(.asset("https://cdn.example/\(Self.markers[1])/avatar-1.png"))
        await disk.close()

        let atRest = Self.found(in: try Self.filesAtRest(directory.url))
        if encrypted {
            #expect(atRest.isEmpty, "markers at rest: \(atRest)")
        } else {
            #expect(atRest.count == Self.markers.count, "the grep sees plain entries: \(atRest)")
        }
    }

    @Test(arguments: [true, false])
    func sqliteFileAndWAL(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.appending("cache.sqlite")
        let sqlite = try SQLiteBackend(path: url)
        let backend: any CacheBackend = encrypted ? EncryptedBackend(wrapping: sqlite, keys: TestKeys.ring()) : sqlite
        try await Self.storeMarked(backend)
        try await backend.pin(.key("https://cdn.example/\(Self.markers[1])/avatar-2.png"))

        // While open, the latest writes sit in the WAL; the grep reads it and the database file
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(wal.count > 0, "the writes are in the WAL")
        let atRest = Self.found(in: try Self.filesAtRest(directory.url))
        await sqlite.close()
        let afterCheckpoint = Self.found(in: try Self.filesAtRest(directory.url))
        if encrypted {
            #expect(atRest.isEmpty && afterCheckpoint.isEmpty, "markers at rest: \(atRest + afterCheckpoint)")
        } else {
            #expect(atRest.count == Self.markers.count, "the grep sees plain rows: \(atRest)")
        }
    }

    @Test(.enabled(if: RedisServer.isInstalled, RedisServer.skipReason), arguments: [true, false])
    func redisKeysAndValues(encrypted: Bool) async throws {
        let server = try await SharedRedisServer.get()
        let prefix = SharedRedisServer.uniquePrefix("marker")
        let redis = RedisBackend(
            configuration: .init(servers: .single(.tcp(host: "127.0.0.1", port: server.port)), keyPrefix: prefix))
        let backend: any CacheBackend = encrypted ? EncryptedBackend(wrapping: redis, keys: TestKeys.ring()) : redis
        try await Self.storeMarked(backend)
        try await backend.pin(.asset("https://cdn.example/\(Self.markers[1])/avatar-4.png"))

        // Every key of this test's (its prefix's entries and pin hashes) and their values, read raw
        // (the other case of this test writes plain values beside them)
        let client = RedisClient(endpoint: .tcp(host: "127.0.0.1", port: server.port))
        var blob = Data()
        var cursor = "0"
        repeat {
            let reply = try await client.send(
                RESPCommand("SCAN", RESPArgument(cursor), "MATCH", RESPArgument("*\(prefix)*"), "COUNT", 1_000))
            guard case .array(let parts?) = reply, case .array(let keys?) = parts[1] else { break }
            for key in keys.compactMap(\.bytes) {
                blob += key
                switch try await client.send(RESPCommand("TYPE", RESPArgument(key))).text {
                case "string":
                    blob += try await client.send(RESPCommand("GET", RESPArgument(key))).bytes ?? Data()
                case "hash":
                    let reply = try await client.send(RESPCommand("HGETALL", RESPArgument(key)))
                    if case .array(let fields?) = reply { for field in fields.compactMap(\.bytes) { blob += field } }
                default:
                    break
                }
            }
            cursor = parts[0].text ?? "0"
        } while cursor != "0"
        try await backend.removeAll()

        let atRest = Self.found(in: blob)
        if encrypted {
            #expect(atRest.isEmpty, "markers in Redis: \(atRest)")
        } else {
            #expect(atRest.count == Self.markers.count, "the grep sees plain values: \(atRest)")
        }
    }
}
