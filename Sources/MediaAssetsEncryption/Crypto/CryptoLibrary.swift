import CLibCrypto

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
