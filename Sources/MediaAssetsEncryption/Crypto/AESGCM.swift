import CLibCrypto

/// AES-256-GCM through libcrypto's EVP interface: one context per call, the cipher fetched once.
///
/// Input may come in several parts (the body, then the sealed metadata), so nothing is copied into
/// one plaintext buffer first; the output is written where the caller says.
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
        let context = try makeContext(key: key, nonce: nonce, encrypting: true)
        defer { EVP_CIPHER_CTX_free(context) }
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
        let context = try makeContext(key: key, nonce: nonce, encrypting: false)
        defer { EVP_CIPHER_CTX_free(context) }
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

    private static func makeContext(
        key: EncryptionKey, nonce: UnsafeRawBufferPointer, encrypting: Bool
    ) throws(EncryptionError) -> OpaquePointer {
        guard let cipher = CryptoLibrary.aes256GCM, let context = EVP_CIPHER_CTX_new() else {
            throw .cryptoFailed(operation: "set up AES-256-GCM", reason: CryptoLibrary.lastError())
        }
        let nonceBytes = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self)
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
