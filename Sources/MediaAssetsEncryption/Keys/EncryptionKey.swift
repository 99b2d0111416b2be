import Foundation

/// An AES-256 key with the id that is stored beside every entry sealed with it, so that reads know
/// which key opens an entry after the current key changed.
///
/// Its `description` never shows the key's bytes.
public struct EncryptionKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's name: 1 to 64 bytes of UTF-8 without spaces (a date, a KMS key version).
    public let id: String
    /// The 32 secret bytes.
    public let bytes: [UInt8]

    /// The length of an AES-256 key.
    public static let length = 32

    /// A key from its id and 32 bytes.
    ///
    /// - Throws: `EncryptionError.invalidKey` for a key of another length or an unusable id.
    public init(id: String, bytes: [UInt8]) throws(EncryptionError) {
        let idLength = id.utf8.count
        guard (1...64).contains(idLength), !id.contains(where: \.isWhitespace) else {
            throw .invalidKey(id: id, reason: "its id is \(idLength) bytes or holds a space")
        }
        guard bytes.count == Self.length else {
            throw .invalidKey(id: id, reason: "it is \(bytes.count) bytes, not \(Self.length)")
        }
        self.id = id
        self.bytes = bytes
    }

    /// A key from its id and the base64 text of its 32 bytes.
    public init(id: String, base64: String) throws(EncryptionError) {
        guard let decoded = Data(base64Encoded: base64.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidKey(id: id, reason: "its bytes are not base64")
        }
        try self.init(id: id, bytes: Array(decoded))
    }

    public var description: String { "EncryptionKey(id: \(id))" }
}
