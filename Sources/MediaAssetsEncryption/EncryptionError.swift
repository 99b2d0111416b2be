import Foundation
import MediaAssets

/// Failures of encryption at rest that a person must act on: keys, key files, the crypto library.
///
/// An entry that cannot be decrypted (damaged, or sealed with a key the provider no longer has) is
/// never an error: it is a miss and is removed.
public enum EncryptionError: Equatable, MediaAssetsError {
    /// A key is not 32 bytes, or its id is empty, longer than 64 bytes of UTF-8, or holds a space.
    case invalidKey(id: String, reason: String)
    /// The provider names a current key it does not have.
    case unknownCurrentKey(id: String)
    /// A key file could not be read or has a line this reader does not understand.
    case invalidKeyFile(path: String, line: Int, reason: String)
    /// libcrypto failed an operation (`operation` names it) with what its error queue said.
    case cryptoFailed(operation: String, reason: String)
    /// The key of an entry cannot be named for the encrypted storage: it holds more `@` and `#`
    /// separators than `EntryNamer.maximumSeparators`.
    case keyTooStructured(key: String, separators: Int)

    public var description: String {
        switch self {
        case .invalidKey(let id, let reason):
            return "The encryption key '\(id.prefix(64))' cannot be used: \(reason). Keys are 32 random bytes "
                + "(AES-256) with an id of 1 to 64 bytes and no spaces; KeyRing.generateKey(id:) makes one."
        case .unknownCurrentKey(let id):
            return "The key provider names '\(id.prefix(64))' as its current key but does not have it; add the key "
                + "before making it current."
        case .invalidKeyFile(let path, let line, let reason):
            return "The key file \(path) cannot be read at line \(line): \(reason). Each line is "
                + "'naming <base64>', 'key <id> <base64>' or 'current <id>' (32 bytes of base64 each)."
        case .cryptoFailed(let operation, let reason):
            return "libcrypto failed to \(operation): \(reason). Check that OpenSSL 3 (libssl3, libssl-dev) "
                + "is installed and not in a restricted (FIPS-only without AES-GCM) configuration."
        case .keyTooStructured(let key, let separators):
            return "The cache key '\(key.prefix(200))' holds \(separators) '@' and '#' separators, more than "
                + "the \(EntryNamer.maximumSeparators) an encrypted backend names; shorten the key."
        }
    }
}
