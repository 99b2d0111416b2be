import CLibCrypto

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
