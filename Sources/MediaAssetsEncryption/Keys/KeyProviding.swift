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
