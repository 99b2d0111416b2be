import Foundation

extension SQLiteSchema {
    /// Version 6: every row moves to a rowid in its key's slots (see `SQLiteKeySlots`), into a table
    /// whose `data` is the last column; `access_order` and `pinned_entries` follow the rows to their
    /// new rowids. One pass over the rows, once, inside the upgrade's transaction.
    ///
    /// Each old row is deleted as soon as it is copied, so the copies reuse its pages and the file
    /// grows by about one batch of rows, not by the whole table (the WAL holds every page written
    /// until the upgrade commits). A row whose 16 slots are all taken (only keys built to collide)
    /// is dropped, as a store would evict one: a cache fetches it again.
    static func moveRowsToKeySlots(_ connection: SQLiteConnection, keyHash: SQLiteKeyHash) throws {
        let operation = "move the entries to their key slots"
        try connection.execute(
            """
            DROP TRIGGER entries_counted_on_insert;
            DROP TRIGGER entries_counted_on_delete;
            DROP TRIGGER entries_unpinned_on_delete;
            \(entriesTable(named: "entries_moved"))
            CREATE TEMP TABLE slot_moves (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
            """,
            operation: operation
        )
        let batch = try connection.prepare(
            "SELECT rowid, key FROM entries WHERE rowid > ?1 ORDER BY rowid LIMIT 256", operation: operation)
        let taken = try connection.prepare(
            "SELECT rowid FROM entries_moved WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid", operation: operation)
        let copy = try connection.prepare(
            """
            INSERT INTO entries_moved (slot, key, size, created, stored, expires, fresh_until, etag, last_modified,
                content_type, partition_name, stale_while_revalidate_until, stale_if_error_until, data)
                SELECT ?2, key, size, created, last_access, expires, fresh_until, etag, last_modified, content_type,
                    partition_name, stale_while_revalidate_until, stale_if_error_until, data
                FROM entries WHERE rowid = ?1
            """,
            operation: operation
        )
        let record = try connection.prepare("INSERT INTO slot_moves (old, new) VALUES (?1, ?2)", operation: operation)
        let remove = try connection.prepare("DELETE FROM entries WHERE rowid = ?1", operation: operation)
        defer { for statement in [batch, taken, copy, record, remove] { statement.finalize() } }

        var lastMoved = Int64.min
        while true {
            // Read a batch, then move it: a query should not walk rows its connection is deleting.
            let rows = try batch.withReset { query -> [(rowID: Int64, slots: SQLiteKeySlots)] in
                try query.bind(lastMoved, at: 1)
                var rows: [(rowID: Int64, slots: SQLiteKeySlots)] = []
                while try query.step() {
                    let slots = query.withBlob(at: 1) { SQLiteKeySlots(keyBytes: $0, hash: keyHash) }
                    rows.append((query.int64(at: 0), slots))
                }
                return rows
            }
            guard let last = rows.last else { break }
            for row in rows {
                if let slot = try row.slots.firstFree(taken) {
                    try copy.run(binding: row.rowID, slot)
                    try record.run(binding: row.rowID, slot)
                }
                try remove.run(binding: row.rowID)
            }
            lastMoved = last.rowID
        }

        // The rows' access times and pins follow them to their slots; the old tables go.
        let followRows = """
            INSERT INTO access_order_moved (entry, last_access, size)
                SELECT slot_moves.new, access_order.last_access, access_order.size
                FROM access_order JOIN slot_moves ON slot_moves.old = access_order.entry;
            INSERT INTO pinned_entries_moved (entry, size)
                SELECT slot_moves.new, pinned_entries.size
                FROM pinned_entries JOIN slot_moves ON slot_moves.old = pinned_entries.entry;
            DROP TABLE access_order;
            DROP TABLE pinned_entries;
            DROP TABLE entries;
            DROP TABLE temp.slot_moves;
            ALTER TABLE access_order_moved RENAME TO access_order;
            CREATE INDEX access_order_by_time ON access_order (last_access, size);
            ALTER TABLE pinned_entries_moved RENAME TO pinned_entries;
            ALTER TABLE entries_moved RENAME TO entries;
            """
        // Rows dropped for want of a slot leave the totals.
        let recount = """
            UPDATE totals SET entries = (SELECT COUNT(*) FROM entries),
                bytes = (SELECT COALESCE(SUM(size), 0) FROM entries);
            """
        try connection.execute(
            accessOrderTable(named: "access_order_moved") + pinnedEntriesTable(named: "pinned_entries_moved")
                + followRows + entriesIndexesAndTriggers + recount,
            operation: operation
        )
    }
}
