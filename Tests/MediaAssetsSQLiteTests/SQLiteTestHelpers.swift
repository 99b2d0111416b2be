import Foundation
import MediaAssets
import TestSupport

@testable import MediaAssetsSQLite

/// A database file in a fresh temporary directory, with a clock the test moves by hand.
struct SQLiteTestFile {
    let directory: TemporaryDirectory
    let url: URL
    let clock = TestClock()

    init(_ name: String = "cache.sqlite") throws {
        directory = try TemporaryDirectory("sqlite")
        url = directory.appending(name)
    }

    /// Opens a backend on the file with the test's clock (and, to force collisions, a key hash).
    func open(
        sizeLimit: Int = 1 << 20, accessTimeBatchSize: Int = 256, busyTimeout: Duration = .seconds(2),
        pinnedQuota: Int? = nil, largestInlineRead: Int = 64 << 10, keyHash: SQLiteKeyHash? = nil
    ) throws -> SQLiteBackend {
        var configuration = SQLiteBackend.Configuration(
            path: url, sizeLimit: sizeLimit, accessTimeBatchSize: accessTimeBatchSize,
            busyTimeout: busyTimeout, pinnedQuota: pinnedQuota, largestInlineRead: largestInlineRead
        )
        configuration.now = clock.now
        if let keyHash { configuration.keyHash = keyHash }
        return try SQLiteBackend(configuration: configuration)
    }

    /// Opens a backend with `sizeLimit` and stores `count` entries of 100 bytes under "k0", "k1", …, moving the
    /// clock one second before each, so they are used from oldest to newest.
    func open(sizeLimit: Int, storing count: Int) async throws -> SQLiteBackend {
        let backend = try open(sizeLimit: sizeLimit)
        for index in 0..<count {
            clock.advance(by: 1)
            try await backend.store(CacheEntry(data: payload(index, count: 100)), forKey: CacheKey("k\(index)"))
        }
        return backend
    }

    /// Runs a query on the file through a bare connection and returns each row's columns as text.
    func rows(_ sql: String) throws -> [[String]] {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let query = try connection.prepare(sql, operation: "inspect the test file")
        defer { query.finalize() }
        return try query.withReset { query in
            var rows: [[String]] = []
            while try query.step() {
                rows.append((0..<query.columnCount).map { query.text(at: $0) ?? "NULL" })
            }
            return rows
        }
    }

    /// The file's bytes now.
    func bytes() throws -> Data { try Data(contentsOf: url) }

    /// Runs SQL on the file through a bare connection (to build foreign or damaged databases).
    func execute(_ sql: String) throws {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        try connection.execute(sql, operation: "prepare the test file")
    }

    func remove() { directory.remove() }
}

/// A key hash that sends every key to the same slots: every store collides.
let everyKeyCollides: SQLiteKeyHash = { _ in 0x5EED_0000_0000_0000 }

/// `count` bytes that say which key and version they belong to, so a torn or mixed value shows.
///
/// A plain loop over the buffer: a `map` over a range costs generic calls per byte in a debug build (far more
/// under TSan), and suites that store thousands of values would hold a cooperative-pool thread with it.
func payload(_ tag: Int, count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
        var index = 0
        while index < count {
            bytes[index] = UInt8(truncatingIfNeeded: tag &* 131 &+ index / 7)
            index += 1
        }
    }
    return data
}

extension SQLiteBackend {
    /// Whether `key` is stored, without counting a hit or a miss in a way the test depends on.
    func contains(_ key: CacheKey) async throws -> Bool { try await entry(forKey: key) != nil }
}
