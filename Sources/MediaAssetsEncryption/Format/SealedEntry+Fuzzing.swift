import Foundation
import MediaAssets

/// Feeds arbitrary bytes to the encrypted backend's reading path as if they were a value read from
/// its storage: the clear header is parsed and the value opened with a fixed key (the tag fails for
/// nearly every input, so the sealed metadata decoder is also fed the bytes directly, as if they had
/// decrypted). It must never crash, whatever the bytes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzSealedEntry(_ data: Data) {
    data.withUnsafeBytes { raw in
        if let header = try? SealedEntry.header(of: raw),
            let key = try? EncryptionKey(id: header.keyID, bytes: fuzzingKey)
        {
            _ = try? SealedEntry.open(raw, header: header, name: "fuzz", with: key)
        }
        _ = try? SealedEntry.splitPlaintext(raw)
        _ = try? SealedEntry.decode(raw)
    }
}

/// A sealed value of `body` with the fuzzing key, for the fuzz target's seeds: a valid input the
/// fuzzer mutates from (a seed whose tag matches reaches the sealed metadata through decryption).
@_spi(Fuzzing) public func fuzzSealedEntrySeed(_ body: Data, etag: String?) -> Data {
    let key = try! EncryptionKey(id: "fuzz", bytes: fuzzingKey)
    let entry = CacheEntry(data: body, metadata: CacheMetadata(etag: etag, contentType: "image/png"))
    return (try? SealedEntry.seal(entry, key: "https://example.com/a.png", name: "fuzz", with: key)) ?? Data()
}

private let fuzzingKey = [UInt8](repeating: 7, count: EncryptionKey.length)
