import Foundation
import MediaAssets
import Synchronization

/// Encryption at rest for any byte backend: a `DiskCache`, a `SQLiteBackend`, a `RedisBackend` or your
/// own, wrapped so that what it stores reveals neither content nor keys.
///
/// - **Bodies and revealing metadata are sealed** with AES-256-GCM (libcrypto, OpenSSL 3), a fresh
///   random nonce per entry: the bytes, the cache key, `ETag`, `Last-Modified`, the content type and
///   the freshness dates (see `SealedEntry`). The storage sees the creation and expiry dates (it
///   expires entries) and the partition (its selections use it).
/// - **Keys are names, not text**: the storage stores each entry under an HMAC-SHA256 of its cache
///   key, segment by segment, so an asset's derived entries still share its name's prefix and
///   `removeEntries(.asset(_:))`, chunk prefixes, pins and partitions work through the wrapper.
/// - **Keys come from a `KeyProviding`** the app supplies, each with an id stored in the entry's
///   clear header. New entries use the current key; reads accept every key the provider still has.
///   `sweep()` re-encrypts older entries with the current key. A key the provider drops makes its
///   entries misses that are removed when read and by the next sweep (crypto-shredding).
/// - An entry that does not open — damaged, or sealed under another name — is a miss and is removed,
///   never wrong bytes.
/// - **A 304 rewrites the whole entry**: `updateMetadata(_:forKey:)` is the protocol's default, which
///   reads the entry and stores it again, because the validators and dates it replaces are sealed with
///   the bytes under one nonce and tag; updating them alone would mean a second seal per entry.
///
/// ```swift
/// let keys = try KeyRing(contentsOf: keyFile)
/// try manager.encryptAtRest(.disk, keys: keys)     // .hybrid(t) uses the encrypted disk from now on
/// ```
///
/// A 16 KiB hit costs one HMAC per key segment and one AES-GCM pass over the bytes on top of the
/// storage's own read (see the `encryption` benchmark rows).
public final class EncryptedBackend: CacheBackend {
    /// The wrapped storage, which sees only sealed values under hashed names.
    package let storage: any CacheBackend
    /// Where the keys come from.
    package let keys: any KeyProviding

    private let namer = Mutex<EntryNamer?>(nil)
    private let counters = Mutex(Counters())
    let writes = WriteGuard()

    private struct Counters {
        var statistics = EncryptionStatistics()
        /// Reads the storage counted as hits that were not served (not opened, or the sweep's).
        var hitsNotServed = 0
    }

    /// Wraps `storage`; entries are sealed with `keys.currentKey()` from now on.
    public init(wrapping storage: any CacheBackend, keys: any KeyProviding) {
        self.storage = storage
        self.keys = keys
    }

    // MARK: CacheBackend

    /// Reads and opens the entry; a value that does not open is a miss and is removed.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        guard let name = try? storageName(key) else { return nil }
        let generation = writes.generation
        let found = try await rekeyed(key, name) { try await storage.entry(forKey: name) }
        guard let stored = found else { return nil }
        switch try open(stored, name: name, key: key) {
        case .opened(let entry, _):
            counters.withLock { $0.statistics.opened += 1 }
            return entry
        case .unknownKey, .damaged:
            await writes.removeIfUnchanged(name.rawValue, since: generation) {
                try await storage.removeEntry(forKey: name)
            }
            return nil
        }
    }

    /// Seals `entry` with the current key and stores it under its hashed name.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let name = try storageName(key)
        let sealed = try SealedEntry.seal(entry, key: key, name: name, with: try keys.currentKey())
        let stored = CacheEntry(data: sealed, metadata: SealedEntry.clearMetadata(entry.metadata))
        try await writes.write(name.rawValue) {
            try await rekeyed(key, name) { try await storage.store(stored, forKey: name) }
        }
        counters.withLock { $0.statistics.sealed += 1 }
    }

    /// Removes the entry under its hashed name.
    public func removeEntry(forKey key: CacheKey) async throws {
        let name = try storageName(key)
        try await writes.write(name.rawValue) { try await storage.removeEntry(forKey: name) }
    }

    /// Removes every entry of the storage; the pins stay.
    public func removeAll() async throws {
        try await writes.batchRemoval { try await storage.removeAll() }
    }

    /// Removes the selected entries through the storage's own selection: an asset and a prefix that
    /// ends at `@` or `#` map to the hashed names (`EntryNamer`), a partition is in the clear.
    ///
    /// - Throws: `AssetsError.unsupported` for a key prefix that ends inside a key segment (hashed
    ///   names keep no such prefix); remove those entries by key.
    public func removeEntries(_ selection: EntrySelection) async throws {
        let mapped = try storageSelection(selection)
        try await writes.batchRemoval { try await storage.removeEntries(mapped) }
    }

    /// Removes expired entries: their expiry is in the clear, so the storage does it.
    public func removeExpired() async throws {
        try await writes.batchRemoval { try await storage.removeExpired() }
    }

    /// The storage's statistics (its bytes include the 34 to 97 bytes a seal adds per entry), with
    /// reads that did not open and the sweep's reads counted as misses, not hits.
    public func statistics() async -> CacheStatistics {
        var statistics = await storage.statistics()
        let notServed = counters.withLock { $0.hitsNotServed }
        statistics.hits -= notServed
        statistics.misses += notServed
        return statistics
    }

    /// The storage's limit (sealed values are 34 to 97 bytes larger than the entries).
    public var byteLimit: Int? { storage.byteLimit }

    /// Pins through the storage, under the hashed names.
    public func pin(_ pin: Pin) async throws {
        let name = try storageName(pin.key)
        try await rekeyed(pin.key, name) { try await storage.pin(Self.pin(pin, named: name)) }
    }

    /// Unpins through the storage, under the hashed names.
    public func unpin(_ pin: Pin) async throws {
        let name = try storageName(pin.key)
        try await rekeyed(pin.key, name) { try await storage.unpin(Self.pin(pin, named: name)) }
    }

    /// The cache keys stored, read back from the sealed entries (each entry is read and opened).
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let names = storage.storedKeys(batchSize: batchSize)
        return AsyncThrowingStream { continuation in
            let producer = Task {
                do {
                    for try await batch in names {
                        var keys: [CacheKey] = []
                        for name in batch {
                            guard let stored = try await storage.entry(forKey: name) else { continue }
                            counters.withLock { $0.hitsNotServed += 1 }
                            if let key = openedKey(stored, name: name) { keys.append(key) }
                        }
                        if !keys.isEmpty { continuation.yield(keys) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    /// Seals, opens, shreds and sweep counts.
    public func encryptionStatistics() -> EncryptionStatistics {
        counters.withLock { $0.statistics }
    }

    // MARK: Internals

    enum Opened {
        case opened(CacheEntry, sealedKey: CacheKey)
        case unknownKey(id: String)
        case damaged(reason: String)
    }

    /// Opens a stored value: the entry, or why not (counted).
    func open(_ stored: CacheEntry, name: CacheKey, key: CacheKey?) throws -> Opened {
        let outcome: Opened = try stored.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Opened in
            let header: SealedEntry.Header
            do throws(SealedEntry.Invalid) {
                header = try SealedEntry.header(of: raw)
            } catch {
                return .damaged(reason: error.reason)
            }
            guard let encryptionKey = try keys.key(withID: header.keyID) else {
                AESGCM.forget(keyID: header.keyID)
                return .unknownKey(id: header.keyID)
            }
            do {
                let (data, sealed) = try SealedEntry.open(raw, header: header, name: name, with: encryptionKey)
                if let key, sealed.key != key.rawValue { return .damaged(reason: "another key's entry") }
                let entry = CacheEntry(data: data, metadata: sealed.restoring(into: stored.metadata))
                return .opened(entry, sealedKey: CacheKey(sealed.key))
            } catch let invalid as SealedEntry.Invalid {
                return .damaged(reason: invalid.reason)
            }
        }
        counters.withLock { counters in
            switch outcome {
            case .opened: break
            case .unknownKey:
                counters.statistics.shredded += 1
                counters.hitsNotServed += 1
            case .damaged:
                counters.statistics.undecryptable += 1
                counters.hitsNotServed += 1
            }
        }
        return outcome
    }

    /// The sweep read an entry the storage counted as a hit.
    func countSweepRead() {
        counters.withLock { $0.hitsNotServed += 1 }
    }

    func countResealed() {
        counters.withLock { $0.statistics.resealed += 1 }
    }

    /// The cache key sealed in a stored value, or nil when it does not open.
    private func openedKey(_ stored: CacheEntry, name: CacheKey) -> CacheKey? {
        stored.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> CacheKey? in
            guard let header = try? SealedEntry.header(of: raw), let key = try? keys.key(withID: header.keyID),
                let opened = try? SealedEntry.open(raw, header: header, name: name, with: key)
            else { return nil }
            return CacheKey(opened.metadata.key)
        }
    }

    /// The storage's name of `key`, from a namer keyed with the provider's naming key.
    func storageName(_ key: CacheKey) throws -> CacheKey {
        let namingKey = try keys.namingKey()
        let current = namer.withLock { $0 }
        if let current, current.keyBytes == namingKey.bytes { return try current.name(for: key) }
        let fresh = try EntryNamer(namingKey: namingKey)
        namer.withLock { $0 = fresh }
        return try fresh.name(for: key)
    }

    private func storageSelection(_ selection: EntrySelection) throws -> EntrySelection {
        switch selection {
        case .partition: return selection
        case .asset(let asset): return .asset(try storageName(asset))
        case .keyPrefix(let prefix):
            if prefix.isEmpty { return selection }
            guard let last = prefix.utf8.last, last == UInt8(ascii: "@") || last == UInt8(ascii: "#") else {
                throw AssetsError.unsupported(
                    operation: "removeEntries(\(selection)) (a prefix that does not end at '@' or '#')",
                    backend: "EncryptedBackend")
            }
            let asset = CacheKey(String(prefix.dropLast()))
            return .keyPrefix(try storageName(asset).rawValue + String(UnicodeScalar(last)))
        }
    }

    private static func pin(_ pin: Pin, named name: CacheKey) -> Pin {
        switch pin {
        case .key: return .key(name)
        case .asset: return .asset(name)
        }
    }

    /// Runs a storage call, putting the cache key back into errors that name the hashed name (they
    /// are read by people, in memory, never stored).
    private func rekeyed<T>(_ key: CacheKey, _ name: CacheKey, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AssetsError {
            switch error {
            case .writeFailed(name, let path, let reason):
                throw AssetsError.writeFailed(key: key, path: path, reason: reason)
            case .readFailed(name, let path, let reason):
                throw AssetsError.readFailed(key: key, path: path, reason: reason)
            case .pinnedQuotaExceeded(name, let bytes, let pinnedBytes, let quota):
                throw AssetsError.pinnedQuotaExceeded(key: key, bytes: bytes, pinnedBytes: pinnedBytes, quota: quota)
            default: throw error
            }
        }
    }
}

extension AssetsManager {
    /// Wraps the backend registered for `storageType` (the disk cache by default) in an
    /// `EncryptedBackend` and registers the wrapper in its place; compositions such as `.hybrid(t)`
    /// use it from then on. Returns the wrapper, for `sweep()` after a rotation.
    ///
    /// Entries the backend held unencrypted are not readable through the wrapper (they do not open):
    /// they are misses, removed on sight or by `sweep()`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered`.
    @discardableResult
    public func encryptAtRest(_ storageType: StorageType = .disk, keys: any KeyProviding) throws -> EncryptedBackend {
        let encrypted = EncryptedBackend(wrapping: try backend(for: storageType), keys: keys)
        register(encrypted, for: storageType)
        return encrypted
    }
}
