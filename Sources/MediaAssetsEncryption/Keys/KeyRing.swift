import Foundation
import Synchronization

/// A `KeyProviding` that holds its keys in memory: the naming key, every valid key, and which one
/// is current. Rotation and crypto-shredding are calls on it.
///
/// ```swift
/// let ring = try KeyRing(contentsOf: URL(fileURLWithPath: "/etc/myapp/cache-keys"))
/// manager.register(EncryptedBackend(wrapping: disk, keys: ring), for: .disk)
/// try ring.rotate(to: try KeyRing.generateKey(id: "2025-07"))   // new writes use the new key
/// let report = try await encrypted.sweep()                         // old entries re-encrypted
/// ring.removeKey(withID: "2025-01")                               // its entries are misses now
/// ```
public final class KeyRing: KeyProviding {
    private struct State {
        var keys: [String: EncryptionKey]
        var currentID: String
    }

    private let naming: EncryptionKey
    private let state: Mutex<State>

    /// A ring of `keys` whose current key is `currentID`, naming entries with `namingKey`.
    ///
    /// - Throws: `EncryptionError.unknownCurrentKey` when no key has `currentID`.
    public init(namingKey: EncryptionKey, keys: [EncryptionKey], currentID: String) throws(EncryptionError) {
        let byID = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        guard byID[currentID] != nil else { throw .unknownCurrentKey(id: currentID) }
        naming = namingKey
        state = Mutex(State(keys: byID, currentID: currentID))
    }

    /// A ring read from a key file (keep it readable by the app's user only):
    ///
    /// ```
    /// # lines: a comment, the naming key, each valid key, and which key is current
    /// naming q3Jt…base64 of 32 bytes…=
    /// key 2025-01 Zm9v…=
    /// key 2025-07 YmFy…=
    /// current 2025-07
    /// ```
    ///
    /// - Throws: `EncryptionError.invalidKeyFile` naming the line, `.invalidKey`, `.unknownCurrentKey`.
    public convenience init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw EncryptionError.invalidKeyFile(path: url.path, line: 0, reason: "\(error.localizedDescription)")
        }
        var naming: EncryptionKey?
        var keys: [EncryptionKey] = []
        var current: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = rawLine.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            let fail = { (reason: String) in
                EncryptionError.invalidKeyFile(path: url.path, line: index + 1, reason: reason)
            }
            switch (first, fields.count) {
            case ("naming", 2): naming = try EncryptionKey(id: "naming", base64: fields[1])
            case ("key", 3): keys.append(try EncryptionKey(id: fields[1], base64: fields[2]))
            case ("current", 2): current = fields[1]
            default: throw fail("expected 'naming <base64>', 'key <id> <base64>' or 'current <id>'")
            }
        }
        guard let naming else { throw EncryptionError.invalidKeyFile(path: url.path, line: 0, reason: "no naming key") }
        guard let current else {
            throw EncryptionError.invalidKeyFile(path: url.path, line: 0, reason: "no current key")
        }
        try self.init(namingKey: naming, keys: keys, currentID: current)
    }

    /// A new key of 32 random bytes from libcrypto's generator (`RAND_bytes`).
    public static func generateKey(id: String) throws -> EncryptionKey {
        try EncryptionKey(id: id, bytes: try SecureRandom.bytes(count: EncryptionKey.length))
    }

    /// The key new entries are sealed with.
    public func currentKey() throws -> EncryptionKey {
        try state.withLock { state throws(EncryptionError) in
            guard let key = state.keys[state.currentID] else { throw .unknownCurrentKey(id: state.currentID) }
            return key
        }
    }

    /// The key named `id`, or nil once it was removed.
    public func key(withID id: String) -> EncryptionKey? {
        state.withLock { $0.keys[id] }
    }

    /// The key that names entries.
    public func namingKey() -> EncryptionKey { naming }

    /// The ids of the keys held.
    public var keyIDs: [String] { state.withLock { Array($0.keys.keys).sorted() } }

    /// The current key's id.
    public var currentID: String { state.withLock { $0.currentID } }

    /// Adds `key` (replacing a key with its id) and makes it current: new entries are sealed with
    /// it, older ones still open.
    public func rotate(to key: EncryptionKey) {
        state.withLock { state in
            state.keys[key.id] = key
            state.currentID = key.id
        }
    }

    /// Adds `key` without making it current (a key other processes may already write with).
    public func add(_ key: EncryptionKey) {
        state.withLock { $0.keys[key.id] = key }
    }

    /// Drops the key `id`: its entries become misses and are removed on sight (crypto-shredding).
    /// The current key cannot be dropped; returns whether a key was.
    @discardableResult
    public func removeKey(withID id: String) -> Bool {
        state.withLock { state in
            guard id != state.currentID else { return false }
            return state.keys.removeValue(forKey: id) != nil
        }
    }
}

/// Where an `EncryptedBackend` gets its keys: the app's own store (a key file or a KMS on a server,
/// the Keychain on Apple platforms), or a `KeyRing`.
///
/// ## Implementation requirements
/// - Answer at once, without I/O: the backend asks on every read and write (a KMS-backed provider
///   keeps the keys it fetched in memory).
/// - `currentKey()` is the key new entries are sealed with. Rotating means making a new key current
///   while keeping the old one: reads still open old entries, and `EncryptedBackend.sweep()`
///   re-encrypts them with the new one.
/// - `key(withID:)` returns every key still valid, the current one included. Returning nil for an
///   id shreds its entries: they are misses from then on, removed on sight and by the next sweep.
/// - `namingKey()` keys the HMAC that turns cache keys into the names the storage sees. Keep it for
///   the cache's lifetime: a new one makes every entry a miss.
/// - Be safe to call from any thread.
public protocol KeyProviding: Sendable {
    /// The key new entries are sealed with.
    func currentKey() throws -> EncryptionKey

    /// The key named `id`, or nil when the provider no longer has it.
    func key(withID id: String) throws -> EncryptionKey?

    /// The secret that names entries (an HMAC-SHA256 of each cache key).
    func namingKey() throws -> EncryptionKey
}
