import CLibCrypto
import Synchronization

/// AES-256-GCM through libcrypto's EVP interface, the cipher fetched once.
///
/// Contexts are kept per key and reused, each set to a new nonce per call: keying a context (the AES
/// key schedule and the GHASH tables) costs more than sealing a small entry. Input may come in several
/// parts (the body, then the sealed metadata), so nothing is copied into one plaintext buffer first;
/// the output is written where the caller says.
enum AESGCM {
    static let nonceLength = 12
    static let tagLength = 16
    /// The most bytes one EVP update takes (its length is an `Int32`).
    private static let largestUpdate = 1 << 30

    /// Encrypts `parts` one after another into `output` (as long as they are together), authenticating
    /// `aad` too, and writes the tag into `tag`.
    static func seal(
        key: EncryptionKey, nonce: UnsafeRawBufferPointer, aad: [UnsafeRawBufferPointer],
        parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws(EncryptionError) {
        let context = try contexts.take(key: key, nonce: nonce, encrypting: true)
        defer { contexts.give(back: context, key: key, encrypting: true) }
        for part in aad { try update(context, encrypting: true, part, into: nil, operation: "authenticate the header") }
        var offset = 0
        for part in parts {
            try update(
                context, encrypting: true, part, into: output.baseAddress.map { $0 + offset },
                operation: "encrypt an entry")
            offset += part.count
        }
        var finalLength: Int32 = 0
        guard EVP_EncryptFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &finalLength) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), tag.baseAddress) == 1
        else { throw .cryptoFailed(operation: "finish sealing an entry", reason: CryptoLibrary.lastError()) }
    }

    /// Decrypts `ciphertext` into `output` (as long) after checking `tag` over it and `aad`; returns
    /// false when the tag does not match (a damaged entry, another key, another name).
    static func open(
        key: EncryptionKey, nonce: UnsafeRawBufferPointer, aad: [UnsafeRawBufferPointer],
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(EncryptionError) -> Bool {
        let context = try contexts.take(key: key, nonce: nonce, encrypting: false)
        defer { contexts.give(back: context, key: key, encrypting: false) }
        for part in aad {
            try update(context, encrypting: false, part, into: nil, operation: "authenticate the header")
        }
        try update(context, encrypting: false, ciphertext, into: output.baseAddress, operation: "decrypt an entry")
        guard
            EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), UnsafeMutableRawPointer(mutating: tag.baseAddress))
                == 1
        else { throw .cryptoFailed(operation: "set the tag", reason: CryptoLibrary.lastError()) }
        var finalLength: Int32 = 0
        var scratch: UInt8 = 0
        let verified = EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1
        if !verified { ERR_clear_error() }
        return verified
    }

    /// The keyed contexts not in use, by key and direction.
    private static let contexts = ContextPool()

    /// Frees the contexts keyed with the key `id` (its provider dropped it: no key schedule of it
    /// stays in memory).
    static func forget(keyID id: String) {
        contexts.forget(keyID: id)
    }

    /// Feeds `input` to the context in pieces an `Int32` can count; with no output, as AAD.
    private static func update(
        _ context: OpaquePointer, encrypting: Bool, _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawPointer?,
        operation: String
    ) throws(EncryptionError) {
        var offset = 0
        while offset < input.count {
            let length = min(largestUpdate, input.count - offset)
            let source = input.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
            let target = output.map { ($0 + offset).assumingMemoryBound(to: UInt8.self) }
            var written: Int32 = 0
            let done =
                encrypting
                ? EVP_EncryptUpdate(context, target, &written, source, Int32(length))
                : EVP_DecryptUpdate(context, target, &written, source, Int32(length))
            guard done == 1 else { throw .cryptoFailed(operation: operation, reason: CryptoLibrary.lastError()) }
            offset += length
        }
    }
}

/// Keyed AES-256-GCM contexts waiting for reuse: at most a few per key and direction (one per thread
/// sealing or opening at once), freed when their key is no longer the one asked for.
private final class ContextPool: Sendable {
    /// A context the pool holds; only one caller uses it between `take` and `give(back:)`.
    private struct Idle: @unchecked Sendable {
        let context: OpaquePointer
    }

    private struct Pooled {
        var keyBytes: [UInt8]
        var idle: [Idle]
    }

    private static let maximumIdle = 8
    private let pools = Mutex<[String: Pooled]>([:])

    /// A context keyed with `key` for one direction, set to `nonce`.
    func take(key: EncryptionKey, nonce: UnsafeRawBufferPointer, encrypting: Bool) throws(EncryptionError)
        -> OpaquePointer
    {
        let poolKey = (encrypting ? "e" : "d") + key.id
        let reused = pools.withLock { pools -> Idle? in
            guard pools[poolKey]?.keyBytes == key.bytes else { return nil }
            return pools[poolKey]?.idle.popLast()
        }?.context
        let nonceBytes = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if let reused {
            // Keyed already: only the nonce changes.
            let started =
                encrypting
                ? EVP_EncryptInit_ex2(reused, nil, nil, nonceBytes, nil)
                : EVP_DecryptInit_ex2(reused, nil, nil, nonceBytes, nil)
            if started == 1 { return reused }
            EVP_CIPHER_CTX_free(reused)
        }
        guard let cipher = CryptoLibrary.aes256GCM, let context = EVP_CIPHER_CTX_new() else {
            throw .cryptoFailed(operation: "set up AES-256-GCM", reason: CryptoLibrary.lastError())
        }
        let started = key.bytes.withUnsafeBufferPointer { keyBytes in
            encrypting
                ? EVP_EncryptInit_ex2(context, cipher, keyBytes.baseAddress, nonceBytes, nil)
                : EVP_DecryptInit_ex2(context, cipher, keyBytes.baseAddress, nonceBytes, nil)
        }
        guard started == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .cryptoFailed(operation: "start AES-256-GCM", reason: CryptoLibrary.lastError())
        }
        return context
    }

    /// Frees the idle contexts of the key `id`, both directions.
    func forget(keyID id: String) {
        let freed = pools.withLock { pools -> [Idle] in
            let idle =
                (pools.removeValue(forKey: "e" + id)?.idle ?? []) + (pools.removeValue(forKey: "d" + id)?.idle ?? [])
            return idle
        }
        for idle in freed { EVP_CIPHER_CTX_free(idle.context) }
    }

    /// Keeps `context` for the next call with `key`, or frees it.
    func give(back context: OpaquePointer, key: EncryptionKey, encrypting: Bool) {
        let poolKey = (encrypting ? "e" : "d") + key.id
        let returned = Idle(context: context)
        let freed = pools.withLock { pools -> [Idle] in
            var pooled = pools[poolKey] ?? Pooled(keyBytes: key.bytes, idle: [])
            var freed: [Idle] = []
            if pooled.keyBytes != key.bytes {
                // Another key under this id: the old contexts go.
                freed = pooled.idle
                pooled = Pooled(keyBytes: key.bytes, idle: [])
            }
            if pooled.idle.count < Self.maximumIdle { pooled.idle.append(returned) } else { freed.append(returned) }
            pools[poolKey] = pooled
            return freed
        }
        for idle in freed { EVP_CIPHER_CTX_free(idle.context) }
    }
}

/// The algorithms fetched from libcrypto once per process (fetching per call costs more than
/// sealing a small entry), and its error queue as text.
enum CryptoLibrary {
    /// AES-256-GCM.
    nonisolated(unsafe) static let aes256GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
    /// HMAC.
    nonisolated(unsafe) static let hmac: OpaquePointer? = EVP_MAC_fetch(nil, "HMAC", nil)

    /// The oldest error on this thread's libcrypto error queue (the queue is emptied).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no error was queued" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Random bytes from libcrypto's generator (`RAND_bytes`), for keys and nonces.
enum SecureRandom {
    static func bytes(count: Int) throws(EncryptionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try fill(&bytes)
        return bytes
    }

    static func fill(_ bytes: inout [UInt8]) throws(EncryptionError) {
        let done = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard done == 1 else { throw .cryptoFailed(operation: "make random bytes", reason: CryptoLibrary.lastError()) }
    }

    /// Fills `buffer` with random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(EncryptionError) {
        guard !buffer.isEmpty else { return }
        let done = RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
        guard done == 1 else { throw .cryptoFailed(operation: "make random bytes", reason: CryptoLibrary.lastError()) }
    }
}
