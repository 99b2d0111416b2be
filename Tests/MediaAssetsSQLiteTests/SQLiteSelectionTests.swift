import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend batch removal")
struct SQLiteSelectionTests {
    @Test func versionOneFileIsUpgradedAndKeepsItsEntries() async throws {
        // Given a file in the layout before partitions, holding one entry
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try file.execute(
            """
            PRAGMA page_size = 16384;
            CREATE TABLE entries (key BLOB PRIMARY KEY NOT NULL, size INTEGER NOT NULL, created REAL NOT NULL,
                last_access REAL NOT NULL, expires REAL, fresh_until REAL, etag TEXT, last_modified TEXT,
                content_type TEXT, data BLOB NOT NULL);
            CREATE INDEX entries_by_last_access ON entries (last_access, size);
            CREATE INDEX entries_by_expiry ON entries (expires) WHERE expires IS NOT NULL;
            INSERT INTO entries VALUES (CAST('old' AS BLOB), 3, 0, 0, NULL, NULL, NULL, NULL, NULL, x'010203');
            PRAGMA application_id = \(SQLiteSchema.applicationID);
            PRAGMA user_version = 1;
            """
        )

        // When the backend opens it and stores through a partition
        let backend = try file.open()
        try await backend.store(CacheEntry(data: Data([4]), metadata: .init(partition: .image)), forKey: "new")

        // Then the old entry reads back without a partition, and the partition removal takes only the new one
        let old = try #require(try await backend.entry(forKey: "old"))
        #expect(old.data == Data([1, 2, 3]) && old.metadata.partition == nil)
        try await backend.removeEntries(.partition(.image))
        #expect(try await backend.entry(forKey: "new") == nil)
        #expect(await backend.statistics().count == 1)
        await backend.checkInvariants()
    }

    @Test func prefixBoundsHandleBytesAtTheTopOfTheRange() {
        #expect(SQLiteStore.smallestBlob(after: [0x61, 0x23]) == [0x61, 0x24])
        #expect(SQLiteStore.smallestBlob(after: [0x61, 0xFF, 0xFF]) == [0x62])
        #expect(SQLiteStore.smallestBlob(after: [0xFF]) == nil)
        #expect(SQLiteStore.smallestBlob(after: []) == nil)
    }

    @Test func removalsUseIndexesNotTableScans() throws {
        // Given a database with the schema
        let file = try SQLiteTestFile()
        defer { file.remove() }
        _ = try file.open()
        let connection = try SQLiteConnection(path: file.url.path)
        defer { connection.close() }

        // Then both selections are searches of an index
        let plan = { (sql: String) -> [String] in
            let statement = try connection.prepare("EXPLAIN QUERY PLAN " + sql, operation: "explain")
            defer { statement.finalize() }
            return try statement.withReset { query in
                var details: [String] = []
                while try query.step() { details.append(query.text(at: 3) ?? "") }
                return details
            }
        }
        let prefix = try plan("DELETE FROM entries WHERE key >= x'61' AND key < x'62'")
        let partition = try plan("DELETE FROM entries WHERE partition_name = 'image'")
        #expect(prefix.contains { $0.hasPrefix("SEARCH entries USING") }, "\(prefix)")
        #expect(partition.contains { $0.contains("entries_by_partition") }, "\(partition)")
    }
}
