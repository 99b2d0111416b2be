import Foundation
import MediaAssets
import Synchronization

extension SQLiteBackend {
    /// Pins `pin` in the file: the rows it covers now and those stored later under a covered key are
    /// never evicted, by this process or any other using the file.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` when the covered rows do not fit
    ///   `Configuration.pinnedQuota` (nothing is pinned), `AssetsError.writeFailed` naming the pin's key.
    public func pin(_ pin: Pin) async throws {
        try await perform(failure: writeFailed(pin.key)) { try $0.pin(pin) }
    }

    /// Removes `pin`; rows no other pin covers become evictable again.
    public func unpin(_ pin: Pin) async throws {
        try await perform(failure: writeFailed(pin.key)) { try $0.unpin(pin) }
    }

    /// The pins held in the file.
    public func pins() async throws -> [Pin] {
        try await perform(failure: removeFailed) { store in
            try store.refreshTotalsIfChangedElsewhere()
            return store.pins.pins
        }
    }

    /// The stored keys in key order, a page of `batchSize` per query through the primary key.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let cursor = KeyCursor()
        return AsyncThrowingStream(unfolding: { [self] in
            guard case .after(let last) = cursor.position.withLock({ $0 }) else { return nil }
            let keys = try await perform(failure: removeFailed) { try $0.keys(after: last, limit: batchSize) }
            cursor.position.withLock { $0 = keys.last.map(KeyCursor.Position.after) ?? .done }
            return keys.isEmpty ? nil : keys
        })
    }

    /// Where a walk of the keys is: after a key (nil: at the start), or done.
    private final class KeyCursor: Sendable {
        enum Position {
            case after(CacheKey?)
            case done
        }

        let position = Mutex(Position.after(nil))
    }
}
