import Foundation
import MediaAssets

/// The bytes an `EncryptedBackend` stores in place of an entry's: a header in the clear, then the
/// body and the metadata that reveal content, sealed with AES-256-GCM.
///
/// ```
/// offset  size  field
///      0     4  magic "MAEN"
///      4     1  format version (1)
///      5     1  key id length n (1…64)
///      6     n  key id (UTF-8)
///    6+n    12  nonce (random, fresh for every entry)
///   18+n     …  ciphertext of: body | sealed metadata | sealed metadata length (UInt32)
///  end-16   16  GCM tag over the ciphertext, the header and the entry's storage name
/// ```
/// The sealed metadata holds the cache key (checked on read), the validators (`ETag`,
/// `Last-Modified`), the content type and the freshness dates; integers are little-endian, a
/// string is its length (UInt32, `0xFFFFFFFF` for none) and its UTF-8 bytes, a date a flag byte and
/// a Float64. The body comes first, so a read hands out the decrypted buffer's start without a copy.
/// The storage name is authenticated but not stored: a value copied under another name fails.
enum SealedEntry {
    static let magic: [UInt8] = Array("MAEN".utf8)
    static let formatVersion: UInt8 = 1
    /// The smallest sealed value: a one-byte key id, no body, the metadata length, the tag.
    static let smallestLength = 6 + 1 + AESGCM.nonceLength + 4 + AESGCM.tagLength

    /// Why stored bytes are not a sealed entry (a miss, and the entry is removed).
    struct Invalid: Error, Equatable {
        var reason: String
    }

    /// What the clear header says.
    struct Header: Equatable {
        var keyID: String
        /// Where the nonce starts; the ciphertext follows it.
        var nonceOffset: Int
        var length: Int { nonceOffset + AESGCM.nonceLength }
    }

    /// What the sealed part holds besides the body.
    struct SealedMetadata: Equatable {
        var key: String
        var etag: String?
        var lastModified: String?
        var contentType: String?
        var freshUntil: Date?
        var staleWhileRevalidateUntil: Date?
        var staleIfErrorUntil: Date?

        init(key: CacheKey, metadata: CacheMetadata) {
            self.key = key.rawValue
            etag = metadata.etag
            lastModified = metadata.lastModified
            contentType = metadata.contentType
            freshUntil = metadata.freshUntil
            staleWhileRevalidateUntil = metadata.staleWhileRevalidateUntil
            staleIfErrorUntil = metadata.staleIfErrorUntil
        }

        init(key: String) { self.key = key }

        /// `clear` (the storage's dates and partition) with these fields put back.
        func restoring(into clear: CacheMetadata) -> CacheMetadata {
            var metadata = clear
            metadata.etag = etag
            metadata.lastModified = lastModified
            metadata.contentType = contentType
            metadata.freshUntil = freshUntil
            metadata.staleWhileRevalidateUntil = staleWhileRevalidateUntil
            metadata.staleIfErrorUntil = staleIfErrorUntil
            return metadata
        }
    }

    /// The metadata the storage sees: dates it needs to expire and order entries, and the partition
    /// its selections use; nothing that reveals content.
    static func clearMetadata(_ metadata: CacheMetadata) -> CacheMetadata {
        CacheMetadata(
            created: metadata.created, lastAccess: metadata.lastAccess, expires: metadata.expires,
            partition: metadata.partition)
    }

    // MARK: Sealing

    /// Seals `entry` (stored under `key`, named `name` in the storage) with `encryptionKey`.
    static func seal(
        _ entry: CacheEntry, key: CacheKey, name: CacheKey, with encryptionKey: EncryptionKey
    ) throws -> Data {
        var header = magic + [formatVersion, UInt8(encryptionKey.id.utf8.count)] + Array(encryptionKey.id.utf8)
        var nonce = [UInt8](repeating: 0, count: AESGCM.nonceLength)
        try SecureRandom.fill(&nonce)
        header += nonce
        var sealed = encode(SealedMetadata(key: key, metadata: entry.metadata))
        append(UInt32(sealed.count), to: &sealed)
        let plaintextLength = entry.data.count + sealed.count
        var value = Data(count: header.count + plaintextLength + AESGCM.tagLength)
        let nameBytes = Array(name.rawValue.utf8)
        try value.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            output.copyBytes(from: header)
            let body = UnsafeMutableRawBufferPointer(rebasing: output[header.count..<(header.count + plaintextLength)])
            let tag = UnsafeMutableRawBufferPointer(rebasing: output[(header.count + plaintextLength)...])
            let headerBytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[..<header.count])
            try entry.data.withUnsafeBytes { data in
                try sealed.withUnsafeBytes { metadata in
                    try nameBytes.withUnsafeBytes { nameBuffer in
                        try nonce.withUnsafeBytes { nonceBuffer in
                            try AESGCM.seal(
                                key: encryptionKey, nonce: nonceBuffer, aad: [headerBytes, nameBuffer],
                                parts: [data, metadata], into: body, tag: tag)
                        }
                    }
                }
            }
        }
        return value
    }

    // MARK: Opening

    /// Reads the clear header of a stored value.
    static func header(of value: UnsafeRawBufferPointer) throws(Invalid) -> Header {
        guard value.count >= smallestLength else { throw Invalid(reason: "\(value.count) bytes is too short") }
        guard value.prefix(4).elementsEqual(magic) else { throw Invalid(reason: "no MAEN magic") }
        guard value[4] == formatVersion else {
            throw Invalid(reason: "format version \(value[4]) is not \(formatVersion)")
        }
        let idLength = Int(value[5])
        guard (1...64).contains(idLength), value.count >= smallestLength - 1 + idLength else {
            throw Invalid(reason: "key id of \(idLength) bytes does not fit")
        }
        let keyID = String(decoding: UnsafeRawBufferPointer(rebasing: value[6..<(6 + idLength)]), as: UTF8.self)
        return Header(keyID: keyID, nonceOffset: 6 + idLength)
    }

    /// Decrypts a stored value with `encryptionKey`: the body (sharing the decrypted buffer) and the
    /// sealed metadata; throws `Invalid` when the tag does not match or the metadata is damaged.
    static func open(
        _ value: UnsafeRawBufferPointer, header: Header, name: CacheKey, with encryptionKey: EncryptionKey
    ) throws -> (data: Data, metadata: SealedMetadata) {
        let plaintextLength = value.count - header.length - AESGCM.tagLength
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, plaintextLength), alignment: 16)
        var adopted = false
        defer { if !adopted { buffer.deallocate() } }
        let nameBytes = Array(name.rawValue.utf8)
        let verified = try nameBytes.withUnsafeBytes { nameBuffer in
            try AESGCM.open(
                key: encryptionKey,
                nonce: UnsafeRawBufferPointer(rebasing: value[header.nonceOffset..<header.length]),
                aad: [UnsafeRawBufferPointer(rebasing: value[..<header.length]), nameBuffer],
                ciphertext: UnsafeRawBufferPointer(rebasing: value[header.length..<(header.length + plaintextLength)]),
                tag: UnsafeRawBufferPointer(rebasing: value[(value.count - AESGCM.tagLength)...]),
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<plaintextLength]))
        }
        guard verified else { throw Invalid(reason: "the tag does not match (damaged, or sealed under another name)") }
        let plaintext = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[..<plaintextLength])
        let (bodyLength, metadata) = try splitPlaintext(plaintext)
        guard bodyLength > 0 else { return (Data(), metadata) }
        adopted = true
        let data = Data(
            bytesNoCopy: buffer.baseAddress!, count: bodyLength,
            deallocator: .custom { pointer, _ in pointer.deallocate() })
        return (data, metadata)
    }

    /// The body's length and the sealed metadata of a decrypted plaintext.
    static func splitPlaintext(_ plaintext: UnsafeRawBufferPointer) throws(Invalid) -> (Int, SealedMetadata) {
        guard plaintext.count >= 4 else { throw Invalid(reason: "no metadata length") }
        let sealedLength = Int(read(UInt32.self, plaintext, plaintext.count - 4))
        guard sealedLength <= plaintext.count - 4 else { throw Invalid(reason: "metadata of \(sealedLength) bytes") }
        let start = plaintext.count - 4 - sealedLength
        let metadata = try decode(UnsafeRawBufferPointer(rebasing: plaintext[start..<(plaintext.count - 4)]))
        return (start, metadata)
    }

    // MARK: Sealed metadata

    static func encode(_ metadata: SealedMetadata) -> [UInt8] {
        var bytes: [UInt8] = []
        for text in [metadata.key, metadata.etag, metadata.lastModified, metadata.contentType] as [String?] {
            guard let text else {
                append(UInt32.max, to: &bytes)
                continue
            }
            append(UInt32(text.utf8.count), to: &bytes)
            bytes += text.utf8
        }
        for date in [metadata.freshUntil, metadata.staleWhileRevalidateUntil, metadata.staleIfErrorUntil] {
            bytes.append(date == nil ? 0 : 1)
            append((date?.timeIntervalSinceReferenceDate ?? 0).bitPattern, to: &bytes)
        }
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Invalid) -> SealedMetadata {
        var offset = 0
        func text() throws(Invalid) -> String? {
            guard bytes.count - offset >= 4 else { throw Invalid(reason: "metadata cut off") }
            let length = read(UInt32.self, bytes, offset)
            offset += 4
            guard length != UInt32.max else { return nil }
            guard bytes.count - offset >= Int(length) else { throw Invalid(reason: "a text of \(length) bytes") }
            defer { offset += Int(length) }
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))]), as: UTF8.self)
        }
        func date() throws(Invalid) -> Date? {
            guard bytes.count - offset >= 9, bytes[offset] <= 1 else { throw Invalid(reason: "a date cut off") }
            defer { offset += 9 }
            let seconds = Double(bitPattern: read(UInt64.self, bytes, offset + 1))
            guard bytes[offset] == 1 else { return nil }
            guard seconds.isFinite else { throw Invalid(reason: "a date that is not finite") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let key = try text() else { throw Invalid(reason: "no key") }
        var metadata = SealedMetadata(key: key)
        metadata.etag = try text()
        metadata.lastModified = try text()
        metadata.contentType = try text()
        metadata.freshUntil = try date()
        metadata.staleWhileRevalidateUntil = try date()
        metadata.staleIfErrorUntil = try date()
        guard offset == bytes.count else { throw Invalid(reason: "\(bytes.count - offset) bytes after the metadata") }
        return metadata
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T
    {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

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
