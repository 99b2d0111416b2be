import Foundation
import MediaAssets
import TestSupport

@testable import MediaAssetsEncryption

/// Keys for the tests: fixed bytes, so a failure is reproducible.
enum TestKeys {
    static func key(_ id: String, fill: UInt8) -> EncryptionKey {
        try! EncryptionKey(id: id, bytes: [UInt8](repeating: fill, count: 32))
    }

    static let naming = key("naming", fill: 0x5A)

    /// A ring holding `k1` as its current key.
    static func ring() -> KeyRing {
        try! KeyRing(namingKey: naming, keys: [key("k1", fill: 1)], currentID: "k1")
    }
}

extension EncryptedBackend {
    /// The id of the key the stored value of `key` was sealed with, read from its clear header.
    func sealingKeyID(of key: CacheKey) async throws -> String? {
        guard let stored = try await storage.entry(forKey: try storageName(key)) else { return nil }
        return stored.data.withUnsafeBytes { (try? SealedEntry.header(of: $0))?.keyID }
    }
}
