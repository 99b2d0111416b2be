import Foundation

/// Last-access times that reads recorded in memory and that a byte backend has not yet saved,
/// and the rule for when to save them: in one batch once `threshold` are pending, never one write
/// per read. `DiskCache` (file modification times) and the SQLite backend (`last_access` column)
/// both keep one, inside the lock or queue that already guards their index.
///
/// The owner calls `record(_:at:)` on every hit; when it returns true, the owner schedules one save
/// (on its own queue), which calls `take()` and writes what it returns. Removed entries are
/// `forget`-ten, so a save never touches an entry that is gone.
package struct AccessTimeBatch<ID: Hashable & Sendable>: Sendable {
    /// The number of pending times that makes a save due.
    package let threshold: Int
    /// The pending times by entry.
    package private(set) var pending: [ID: Date] = [:]
    private var isSaveScheduled = false

    /// Creates an empty batch that is due at `threshold` pending times (at least 1).
    package init(threshold: Int) {
        self.threshold = max(1, threshold)
    }

    /// The number of pending times.
    package var count: Int { pending.count }

    /// Records that `id` was read at `date`. Returns true exactly once per batch, when it becomes
    /// due: the caller then schedules the save.
    package mutating func record(_ id: ID, at date: Date) -> Bool {
        pending[id] = date
        guard pending.count >= threshold, !isSaveScheduled else { return false }
        isSaveScheduled = true
        return true
    }

    /// Takes every pending time for saving; a new batch starts.
    package mutating func take() -> [ID: Date] {
        isSaveScheduled = false
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    /// Drops the pending time of an entry that was removed (or whose time was saved another way).
    package mutating func forget(_ id: ID) {
        pending[id] = nil
    }

    /// Drops the pending times of `ids` that still hold the date a save wrote; a newer read stays.
    package mutating func forget(saved times: [ID: Date]) {
        for (id, date) in times where pending[id] == date { pending[id] = nil }
    }

    /// Drops every pending time (everything was removed).
    package mutating func forgetAll() {
        pending.removeAll()
    }
}
