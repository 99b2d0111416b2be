import CSQLite
import Foundation
import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

extension SQLiteStore {
    /// The database pages in use now (inside a transaction: as that transaction sees them).
    func usedPages() throws -> Int {
        let statements = try openStatements()
        let pages = try statements.pageCount.withReset { query -> Int64 in
            try query.step()
            return query.int64(at: 0)
        }
        let free = try statements.freelistCount.withReset { query -> Int64 in
            try query.step()
            return query.int64(at: 0)
        }
        return Int(pages - free)
    }

    /// Checkpoints the WAL into the database and truncates it once it has grown past its budget,
    /// so the WAL never holds more than `budget.walBytes` between operations. Another process
    /// reading an old snapshot can hold it back; the next write tries again.
    func checkpointIfWALOverBudget() {
        guard let info = fileStatus(path + "-wal"), Int(info.st_size) > budget.walBytes else { return }
        checkpoint()
    }

    /// Copies the WAL into the database and truncates the WAL to zero bytes.
    func checkpoint() {
        try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)", operation: "checkpoint the WAL")
    }

    /// Runs a write; if it fails because the filesystem is full, frees space and runs it once more.
    ///
    /// Freeing space: the reserve file is deleted and the WAL truncated, which gives a delete the
    /// room its WAL frames need; for a store of `incomingBytes`, least recently used rows of that
    /// size are evicted too (their pages are reused by the retried insert, so the files do not
    /// grow). The reserve is recreated once space allows, as large as the space allows.
    func recoveringFromFullDisk<T>(incomingBytes: Int = 0, _ write: () throws -> T) throws -> T {
        defer { restoreReserveIfMissing() }
        do {
            return try write()
        } catch let error as SQLiteError where error.isDiskFull {
            releaseReserve()
            checkpoint()
            if incomingBytes > 0 {
                try? evictForFullDisk(bytes: incomingBytes)
                checkpoint()
            }
            let result = try write()
            checkpoint()
            return result
        }
    }

    /// Creates the reserve file at open, or after it was released: at its budgeted size if the
    /// filesystem has room, else the largest smaller one that fits (halving), down to what one delete
    /// needs. A filesystem too small or too full for even that gets none until space is freed.
    func restoreReserveIfMissing() {
        guard !hasReserve else { return }
        let reservePath = path + "-reserve"
        let descriptor = open(reservePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { POSIX.close(descriptor) }
        for size in budget.reserveSizes {
            // posix_fallocate allocates real blocks (a sparse file would free nothing when deleted).
            if posix_fallocate(descriptor, 0, off_t(size)) == 0 {
                hasReserve = true
                reserveBytes = size
                return
            }
            // A failed attempt may leave some blocks allocated: give them back before a smaller one.
            _ = ftruncate(descriptor, 0)
        }
        unlink(reservePath)
        reserveBytes = 0
    }

    /// What the cache's files can occupy on their filesystem: the free space now plus what they
    /// (database, WAL, shared memory, reserve) hold already; nil if unknown.
    static func filesystemRoom(path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let held = ["", "-wal", "-shm", "-reserve"].reduce(0) { total, suffix in
            var status = stat()
            return total + (stat(path + suffix, &status) == 0 ? Int(status.st_blocks) * 512 : 0)
        }
        return Int(info.f_bavail) * Int(info.f_frsize) + held
    }

    private func releaseReserve() {
        unlink(path + "-reserve")
        hasReserve = false
    }

    private func fileStatus(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }
}

extension SQLiteError {
    /// Whether SQLite reported a full disk or database (`SQLITE_FULL`).
    var isDiskFull: Bool {
        guard case .statementFailed(_, _, let code, _) = self else { return false }
        return code & 0xFF == SQLITE_FULL
    }
}
