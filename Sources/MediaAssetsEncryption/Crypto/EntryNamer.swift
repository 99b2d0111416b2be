import CLibCrypto
import MediaAssets
import Synchronization

/// Turns a cache key into the name the wrapped storage sees: an HMAC-SHA256 (128 bits, hex) of each
/// prefix of the key that ends before an `@` or `#`, joined by those separators.
///
/// `k@v#1` becomes `H(k)@H(k@v)#H(k@v#1)`, so the name of a derived key starts with the name of its
/// asset and the same separator: `.asset(k)` and `.keyPrefix("k#")` map to selections of the storage
/// (`.asset(H(k))`, `.keyPrefix("H(k)#")`) without revealing any key. What the names show is the
/// number of separators in a key.
final class EntryNamer: Sendable {
    /// The most separators a key may hold (each costs one HMAC).
    static let maximumSeparators = 64
    /// Hex digits per name segment: 128 bits of the HMAC.
    static let segmentLength = 32

    /// An HMAC context keyed with the naming key, copied for each name (keying costs more than the MAC).
    private let keyed: Mutex<OpaquePointer>
    /// The naming key's bytes, so a provider that changes it gets a new namer.
    let keyBytes: [UInt8]
    /// Names made recently: a hit of a hot key costs a dictionary lookup instead of its HMACs. Emptied
    /// when it reaches `cachedNames` (a few hundred KiB at most).
    private let recent = Mutex<[CacheKey: CacheKey]>([:])
    private static let cachedNames = 4_096

    init(namingKey: EncryptionKey) throws(EncryptionError) {
        guard let mac = CryptoLibrary.hmac, let context = EVP_MAC_CTX_new(mac) else {
            throw .cryptoFailed(operation: "set up HMAC-SHA256", reason: CryptoLibrary.lastError())
        }
        var digest = Array("SHA256".utf8CString)
        let keyedOK = digest.withUnsafeMutableBufferPointer { name in
            var parameters = [
                OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, name.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return namingKey.bytes.withUnsafeBufferPointer { key in
                EVP_MAC_init(context, key.baseAddress, key.count, &parameters)
            }
        }
        guard keyedOK == 1 else {
            EVP_MAC_CTX_free(context)
            throw .cryptoFailed(operation: "key HMAC-SHA256", reason: CryptoLibrary.lastError())
        }
        keyed = Mutex(context)
        keyBytes = namingKey.bytes
    }

    deinit {
        keyed.withLock { EVP_MAC_CTX_free($0) }
    }

    /// The storage's name for `key`.
    func name(for key: CacheKey) throws(EncryptionError) -> CacheKey {
        if let known = recent.withLock({ $0[key] }) { return known }
        let name = try computeName(for: key)
        recent.withLock { recent in
            if recent.count >= Self.cachedNames { recent.removeAll(keepingCapacity: true) }
            recent[key] = name
        }
        return name
    }

    private func computeName(for key: CacheKey) throws(EncryptionError) -> CacheKey {
        let bytes = Array(key.rawValue.utf8)
        var separators: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "@") || byte == UInt8(ascii: "#") {
            separators.append(index)
        }
        guard separators.count <= Self.maximumSeparators else {
            throw .keyTooStructured(key: key.rawValue, separators: separators.count)
        }
        var name = [UInt8]()
        name.reserveCapacity((separators.count + 1) * (Self.segmentLength + 1))
        let context = try copyOfKeyed()
        defer { EVP_MAC_CTX_free(context) }
        var fed = 0
        for end in separators + [bytes.count] {
            // One running MAC over the key: each segment's value is a copy finished at its end (the
            // last one is the running MAC itself).
            try feed(context, bytes[fed..<end])
            fed = end
            try appendHex(of: context, to: &name, copying: end < bytes.count)
            if end < bytes.count { name.append(bytes[end]) }
        }
        return CacheKey(String(decoding: name, as: UTF8.self))
    }

    private func copyOfKeyed() throws(EncryptionError) -> OpaquePointer {
        guard let copy = keyed.withLock({ EVP_MAC_CTX_dup($0) }) else {
            throw .cryptoFailed(operation: "copy the HMAC state", reason: CryptoLibrary.lastError())
        }
        return copy
    }

    private func feed(_ context: OpaquePointer, _ bytes: ArraySlice<UInt8>) throws(EncryptionError) {
        guard !bytes.isEmpty else { return }
        let done = bytes.withUnsafeBufferPointer { EVP_MAC_update(context, $0.baseAddress, $0.count) }
        guard done == 1 else { throw .cryptoFailed(operation: "hash a key", reason: CryptoLibrary.lastError()) }
    }

    private func appendHex(of context: OpaquePointer, to name: inout [UInt8], copying: Bool) throws(EncryptionError) {
        guard let finished = copying ? EVP_MAC_CTX_dup(context) : context else {
            throw .cryptoFailed(operation: "copy the HMAC state", reason: CryptoLibrary.lastError())
        }
        defer { if copying { EVP_MAC_CTX_free(finished) } }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        let done = digest.withUnsafeMutableBufferPointer { EVP_MAC_final(finished, $0.baseAddress, &length, $0.count) }
        guard done == 1 else { throw .cryptoFailed(operation: "hash a key", reason: CryptoLibrary.lastError()) }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in digest.prefix(Self.segmentLength / 2) {
            name.append(hex[Int(byte >> 4)])
            name.append(hex[Int(byte & 0xF)])
        }
    }
}
