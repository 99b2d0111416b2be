import Foundation
import MediaAssets
import MediaAssetsSQLite
import Synchronization

// README: "Registering a backend"
/// A backend of your own: conform to CacheBackend (here, a dictionary behind a Mutex).
final class DictionaryBackend: CacheBackend {
    private let entries = Mutex<[CacheKey: CacheEntry]>([:])

    func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        entries.withLock { $0[key] }.flatMap { $0.isExpired(at: Date()) ? nil : $0 }
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        entries.withLock { $0[key] = entry }
    }

    func removeEntry(forKey key: CacheKey) async throws {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    func removeAll() async throws {
        entries.withLock { $0.removeAll() }
    }

    func statistics() async -> CacheStatistics {
        var statistics = CacheStatistics()
        statistics.count = entries.withLock { $0.count }
        return statistics
    }
}

func registerBackends(manager: AssetsManager, databaseFile: URL) async throws {
    manager.register(DictionaryBackend(), for: .custom("dictionary"))
    try await manager.writeData(Data("hi".utf8), forKey: "greeting", storageType: .custom("dictionary"))

    // SQLite in place of the disk cache: .hybrid(t) becomes memory in front of SQLite.
    manager.register(try SQLiteBackend(path: databaseFile), for: .disk)
}
