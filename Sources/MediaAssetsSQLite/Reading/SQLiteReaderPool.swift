import Foundation
import MediaAssets
import Synchronization

/// The read connections of a backend, each lent to one read at a time.
///
/// A read takes an idle connection or opens one, so there are as many as reads run at once (the
/// cooperative pool's threads and the read queue); up to `idleLimit` stay open for the next reads.
/// Taking and returning one is a lock held for a few instructions.
final class SQLiteReaderPool: Sendable {
    private struct State {
        var idle: [SQLiteReader] = []
        var isClosed = false
    }

    private let open: @Sendable () throws -> SQLiteReader
    private let state = Mutex(State())
    private let idleLimit: Int
    private let path: String

    init(path: String, idleLimit: Int, open: @escaping @Sendable () throws -> SQLiteReader) {
        self.path = path
        self.idleLimit = max(1, idleLimit)
        self.open = open
    }

    /// Runs `body` with a reader of its own.
    ///
    /// - Throws: `AssetsError.closed` once `close()` has run; what `body` or opening throws.
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        let reader = try take()
        defer { giveBack(reader) }
        return try body(reader)
    }

    /// Closes the idle readers; a reader in use is closed when it comes back. Later reads throw
    /// `AssetsError.closed`.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for reader in idle { reader.close() }
    }

    private func take() throws -> SQLiteReader {
        let taken: Result<SQLiteReader?, AssetsError> = state.withLock { state in
            guard !state.isClosed else { return .failure(.closed(path: path)) }
            return .success(state.idle.popLast())
        }
        return try taken.get() ?? open()
    }

    private func giveBack(_ reader: SQLiteReader) {
        let kept = state.withLock { state in
            guard !state.isClosed, state.idle.count < idleLimit else { return false }
            state.idle.append(reader)
            return true
        }
        if !kept { reader.close() }
    }
}
