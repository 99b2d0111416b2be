import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend schema upgrades")
struct SQLiteUpgradeTests {
    /// The `entries` table as each older release created it, with one entry holding every field
    /// that version had (versions 4 and 5: the version before and the step that made it, as it shipped).
    static func olderSchema(version: Int) -> String {
        if version >= 4 {
            return olderSchema(version: version - 1) + SQLiteSchema.upgradeStep(to: Int64(version))
                + "PRAGMA user_version = \(version);"
        }
        let partition = version >= 2 ? ", partition_name TEXT" : ""
        let partitionValue = version >= 2 ? ", 'image'" : ""
        let staleDates = version >= 3 ? ", stale_while_revalidate_until REAL, stale_if_error_until REAL" : ""
        let staleValues = version >= 3 ? ", NULL, NULL" : ""
        let partitionIndex =
            "CREATE INDEX entries_by_partition ON entries (partition_name) WHERE partition_name IS NOT NULL;"
        return """
            PRAGMA page_size = 16384;
            CREATE TABLE entries (key BLOB PRIMARY KEY NOT NULL,
                size INTEGER NOT NULL CHECK (size >= 0 AND size = length(data)), created REAL NOT NULL,
                last_access REAL NOT NULL, expires REAL, fresh_until REAL, etag TEXT, last_modified TEXT,
                content_type TEXT, data BLOB NOT NULL\(partition)\(staleDates));
            CREATE INDEX entries_by_last_access ON entries (last_access, size);
            CREATE INDEX entries_by_expiry ON entries (expires) WHERE expires IS NOT NULL;
            \(version >= 2 ? partitionIndex : "")
            INSERT INTO entries VALUES (CAST('old' AS BLOB), 3, 100, 100, 4000000000, 200, '"e"', 'yesterday',
                'image/png', x'010203'\(partitionValue)\(staleValues));
            PRAGMA application_id = \(SQLiteSchema.applicationID);
            PRAGMA user_version = \(version);
            """
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func olderFileIsUpgradedInPlaceAndKeepsItsEntries(version: Int) async throws {
        // Given a file an older release wrote, holding one entry
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try file.execute(Self.olderSchema(version: version))

        // When the backend opens it
        var backend = try file.open()

        // Then the entry reads back with every field it had and no stale dates
        let old = try #require(try await backend.entry(forKey: "old"))
        #expect(old.data == Data([1, 2, 3]))
        let metadata = old.metadata
        #expect(metadata.created == Date(timeIntervalSinceReferenceDate: 100))
        #expect(metadata.expires == Date(timeIntervalSinceReferenceDate: 4_000_000_000))
        #expect(metadata.freshUntil == Date(timeIntervalSinceReferenceDate: 200))
        #expect(metadata.etag == "\"e\"" && metadata.lastModified == "yesterday")
        #expect(metadata.contentType == "image/png")
        #expect(metadata.partition == (version >= 2 ? .image : nil))
        #expect(metadata.staleWhileRevalidateUntil == nil && metadata.staleIfErrorUntil == nil)

        // And the file is now the current version, keeps stale dates across a reopen, and is not upgraded twice
        let dated = CacheMetadata(
            staleWhileRevalidateUntil: Date(timeIntervalSinceReferenceDate: 300.5),
            staleIfErrorUntil: Date(timeIntervalSinceReferenceDate: 400.25)
        )
        try await backend.store(CacheEntry(data: Data([4]), metadata: dated), forKey: "new")
        await backend.close()
        let connection = try SQLiteConnection(path: file.url.path)
        let fileVersion = try connection.integers("PRAGMA user_version", operation: "read the version")
        connection.close()
        #expect(fileVersion == [SQLiteSchema.version])
        backend = try file.open()
        let new = try #require(try await backend.entry(forKey: "new")).metadata
        #expect(new.staleWhileRevalidateUntil == dated.staleWhileRevalidateUntil)
        #expect(new.staleIfErrorUntil == dated.staleIfErrorUntil)
        #expect(try await backend.entry(forKey: "old")?.data == Data([1, 2, 3]))
        #expect(await backend.statistics().count == 2)

        // And the upgraded file keeps pins (version 5), the old entry included
        try await backend.pin(.key("old"))
        #expect(await backend.statistics().pinnedCount == 1)
        // And every row sits in its key's slots (version 6)
        await backend.checkInvariants()
    }

    @Test func versionFiveRowsMoveToTheirKeySlotsWithTheirPinsAndAccessTimes() async throws {
        // Given a version 5 file of three entries, one pinned, with access times 30, 10 and 20
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try file.execute(Self.olderSchema(version: 5))
        try file.execute(
            """
            INSERT INTO entries (key, size, created, last_access, data) VALUES
                (CAST('a' AS BLOB), 2, 0, 5, x'0a0a'), (CAST('b' AS BLOB), 3, 0, 5, x'0b0b0b');
            UPDATE access_order SET last_access = CASE
                (SELECT key FROM entries WHERE rowid = entry) WHEN CAST('a' AS BLOB) THEN 10
                WHEN CAST('b' AS BLOB) THEN 20 ELSE 30 END;
            INSERT INTO pins (kind, key) VALUES (0, CAST('a' AS BLOB));
            INSERT INTO pinned_entries (entry, size) SELECT rowid, size FROM entries WHERE key = CAST('a' AS BLOB);
            """
        )

        // When a backend whose keys all hash alike opens it (three keys, three slots of one hash)
        var backend = try file.open(keyHash: everyKeyCollides)
        await backend.close()

        // Then the rows hold the hash's first three slots, with their access times and the pin
        let first = SQLiteKeySlots(hash: everyKeyCollides(UnsafeRawBufferPointer(start: nil, count: 0))).first
        let rows = try file.rows(
            """
            SELECT CAST(entries.key AS TEXT), entries.slot - \(first), access_order.last_access
                FROM entries JOIN access_order ON access_order.entry = entries.slot ORDER BY entries.slot
            """)
        #expect(Set(rows.map { $0[1] }) == ["0", "1", "2"])
        let times = Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0[2]) })
        #expect(times == ["a": "10.0", "b": "20.0", "old": "30.0"])
        #expect(try file.rows("SELECT CAST(key AS TEXT) FROM entries JOIN pinned_entries ON entry = slot") == [["a"]])

        // And every entry reads back from its slot, the pin still holds "a", and the totals agree
        backend = try file.open(keyHash: everyKeyCollides)
        #expect(try await backend.entry(forKey: "a")?.data == Data([10, 10]))
        #expect(try await backend.entry(forKey: "b")?.data == Data([11, 11, 11]))
        #expect(try await backend.entry(forKey: "old")?.data == Data([1, 2, 3]))
        let statistics = await backend.statistics()
        #expect(statistics.count == 3 && statistics.bytes == 8, "\(statistics)")
        #expect(statistics.pinnedCount == 1 && statistics.pinnedBytes == 2, "\(statistics)")
        await backend.checkInvariants()
    }

    @Test func versionThreeAccessTimesKeepTheirOrderAfterTheUpgrade() async throws {
        // Given a version 3 file with a newer and an older entry of 400 KiB each
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try file.execute(Self.olderSchema(version: 3))
        try file.execute(
            """
            DELETE FROM entries;
            INSERT INTO entries (key, size, created, last_access, data) VALUES
                (CAST('newer' AS BLOB), 409600, 0, 100, zeroblob(409600)),
                (CAST('older' AS BLOB), 409600, 0, 50, zeroblob(409600));
            """
        )

        // When it is opened with a limit that holds only one of them
        let backend = try file.open(sizeLimit: 600 << 10)

        // Then the sweep at open evicted the entry its saved time says is older
        #expect(try await backend.entry(forKey: "older") == nil)
        #expect(try await backend.entry(forKey: "newer")?.data.count == 409_600)
        #expect(await backend.statistics().evictions == 1)
        await backend.checkInvariants()
    }

    @Test func openReadsTheStoredTotalsInsteadOfSummingTheEntries() async throws {
        // Given a file of three entries whose totals row says something else (edited by hand)
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var backend = try file.open()
        for index in 0..<3 {
            try await backend.store(CacheEntry(data: payload(index, count: 10)), forKey: CacheKey("k\(index)"))
        }
        await backend.close()
        try file.execute("UPDATE totals SET entries = 7, bytes = 700")

        // When it is opened
        backend = try file.open()

        // Then the count and size are the row's: open reads one row, whatever the number of entries
        let statistics = await backend.statistics()
        #expect(statistics.count == 7 && statistics.bytes == 700, "\(statistics)")
        await backend.close()
    }

    @Test func triggersKeepTheTotalsThroughEveryKindOfRemoval() async throws {
        // Given entries under two prefixes, one expiring, in a partition
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        let soon = CacheMetadata(expires: file.clock.date.addingTimeInterval(5), partition: .image)
        for index in 0..<4 {
            try await backend.store(CacheEntry(data: payload(index, count: 10)), forKey: CacheKey("a\(index)"))
            try await backend.store(CacheEntry(data: payload(index, count: 20), metadata: soon), forKey: "b\(index)")
        }
        try await backend.store(CacheEntry(data: payload(9, count: 30)), forKey: "a0")

        // When entries go by key, by prefix, by expiry and all at once, the row agrees with the table
        try await backend.removeEntry(forKey: "a1")
        await backend.checkInvariants()
        try await backend.removeEntries(.keyPrefix("a"))
        await backend.checkInvariants()
        file.clock.advance(by: 10)
        try await backend.removeExpired()
        await backend.checkInvariants()
        #expect(await backend.statistics().count == 0)
        try await backend.store(CacheEntry(data: payload(1, count: 10)), forKey: "c")
        try await backend.removeAll()
        await backend.checkInvariants()
        #expect(await backend.statistics().count == 0)
    }
}
