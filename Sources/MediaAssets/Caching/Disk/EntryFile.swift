import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The layout of one disk cache file: a header, then the entry's bytes.
///
/// ```
/// offset  size  field
///      0     4  magic "MADC"
///      4     2  format version (2)
///      6     2  reserved (0)
///      8     4  header length (fixed part + key + strings)
///     12     4  key length
///     16     8  body length
///     24     8  checksum: XXH64 of the body, seeded with XXH64 of the header with this field zeroed
///     32     8  created (seconds since 2001-01-01, Foundation's reference date, Float64: exact)
///     40     8  expires (NaN when none)
///     48     8  fresh until (NaN when none)
///     56     4  ETag length        60  4  Last-Modified length
///     64     4  content type length 68 4  partition length (0 for none; 0 in files written before
///                                           partitions, which therefore read as no partition)
///     72     8  stale-while-revalidate until (NaN when none)
///     80     8  stale-if-error until (NaN when none)
///     88     …  key, ETag, Last-Modified, content type, partition (UTF-8), then the body
/// ```
/// All integers are little-endian. The last-access time is the file's modification time, which
/// the cache updates lazily. Any mismatch (magic, version, lengths, checksum, key) makes the file
/// a miss, and the cache removes it.
///
/// Version 1 files, written before the RFC 5861 dates, are still read so that a cache survives the
/// upgrade: their fixed part ends at offset 72, where the key begins, and they read with no stale
/// dates. Stores always write version 2.
enum EntryFile: LittleEndianFormat {
    static let magic: [UInt8] = Array("MADC".utf8)
    /// The version stores write.
    static let formatVersion: UInt16 = 2
    /// The fixed part of a header that stores write (version 2).
    static let fixedHeaderLength = 88
    /// The fixed part of a version 1 header: the shortest file of any version read is this long.
    static let smallestFixedHeaderLength = 72
    /// Header lengths above this are treated as corruption rather than read.
    static let maxHeaderLength = 64 << 20

    /// The decoded header of an entry file.
    struct Header {
        var key: String
        var metadata: CacheMetadata
        var headerLength: Int
        var bodyLength: Int
        var checksum: UInt64
    }

    /// Why a file was rejected.
    enum Corruption: Error {
        case tooShort, badMagic, unsupportedVersion, badLengths, checksumMismatch, keyMismatch
    }

    /// Encodes the header for `entry` under `key`, checksum included.
    static func encodeHeader(key: CacheKey, entry: CacheEntry) -> [UInt8] {
        let keyBytes = Array(key.rawValue.utf8)
        let etag = Array((entry.metadata.etag ?? "").utf8)
        let lastModified = Array((entry.metadata.lastModified ?? "").utf8)
        let contentType = Array((entry.metadata.contentType ?? "").utf8)
        let partition = Array((entry.metadata.partition?.rawValue ?? "").utf8)
        let headerLength =
            fixedHeaderLength + keyBytes.count + etag.count + lastModified.count + contentType.count
            + partition.count
        var header = [UInt8]()
        header.reserveCapacity(headerLength)
        header += magic
        append(formatVersion, to: &header)
        append(UInt16(0), to: &header)
        append(UInt32(truncatingIfNeeded: headerLength), to: &header)
        append(UInt32(truncatingIfNeeded: keyBytes.count), to: &header)
        append(UInt64(entry.data.count), to: &header)
        append(UInt64(0), to: &header)  // checksum, filled in below
        append(entry.metadata.created.timeIntervalSinceReferenceDate.bitPattern, to: &header)
        append(bitPattern(entry.metadata.expires), to: &header)
        append(bitPattern(entry.metadata.freshUntil), to: &header)
        append(UInt32(etag.count), to: &header)
        append(UInt32(lastModified.count), to: &header)
        append(UInt32(contentType.count), to: &header)
        append(UInt32(partition.count), to: &header)
        append(bitPattern(entry.metadata.staleWhileRevalidateUntil), to: &header)
        append(bitPattern(entry.metadata.staleIfErrorUntil), to: &header)
        header += keyBytes
        header += etag
        header += lastModified
        header += contentType
        header += partition
        let checksum = entry.data.withUnsafeBytes { body in
            XXHash64.hash(body, seed: header.withUnsafeBytes { XXHash64.hash($0) })
        }
        withUnsafeBytes(of: checksum.littleEndian) { header.replaceSubrange(24..<32, with: $0) }
        return header
    }

    /// The header length an encoded file declares, read from its first 12 bytes (`prefix` holds at
    /// least the smallest fixed part).
    static func declaredHeaderLength(_ prefix: UnsafeRawBufferPointer) throws(Corruption) -> Int {
        try declaredLayout(prefix).headerLength
    }

    /// The fixed part's length for the file's version and the header length it declares, checked
    /// against each other and against `maxHeaderLength`.
    private static func declaredLayout(
        _ prefix: UnsafeRawBufferPointer
    ) throws(Corruption) -> (fixedLength: Int, headerLength: Int) {
        guard prefix.count >= smallestFixedHeaderLength else { throw .tooShort }
        guard prefix.prefix(4).elementsEqual(magic) else { throw .badMagic }
        let fixedLength: Int
        switch read(UInt16.self, prefix, 4) {
        case 1: fixedLength = smallestFixedHeaderLength
        case formatVersion: fixedLength = fixedHeaderLength
        default: throw .unsupportedVersion
        }
        let headerLength = Int(read(UInt32.self, prefix, 8))
        guard headerLength >= fixedLength, headerLength <= maxHeaderLength else { throw .badLengths }
        return (fixedLength, headerLength)
    }

    /// Decodes a complete header (`bytes` holds at least the declared header length).
    ///
    /// With `expectedKey`, a file holding another key throws `keyMismatch`, and the key is compared
    /// in place rather than decoded into a new string (a hit allocates no copy of its key).
    static func decodeHeader(
        _ bytes: UnsafeRawBufferPointer, fileSize: Int, expectedKey: String? = nil
    ) throws(Corruption) -> Header {
        let (fixedLength, headerLength) = try declaredLayout(bytes)
        guard bytes.count >= headerLength else { throw .tooShort }
        let keyLength = Int(read(UInt32.self, bytes, 12))
        let bodyLength = read(UInt64.self, bytes, 16)
        let etagLength = Int(read(UInt32.self, bytes, 56))
        let lastModifiedLength = Int(read(UInt32.self, bytes, 60))
        let contentTypeLength = Int(read(UInt32.self, bytes, 64))
        let partitionLength = Int(read(UInt32.self, bytes, 68))
        let stringsLength = keyLength + etagLength + lastModifiedLength + contentTypeLength + partitionLength
        // Compared without adding: a hostile body length must not overflow.
        guard fixedLength + stringsLength == headerLength, fileSize >= headerLength,
            bodyLength == UInt64(fileSize - headerLength)
        else { throw .badLengths }

        var cursor = fixedLength
        func string(_ length: Int) -> String {
            defer { cursor += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[cursor..<cursor + length]), as: UTF8.self)
        }
        let key: String
        if var expected = expectedKey {
            let stored = UnsafeRawBufferPointer(rebasing: bytes[cursor..<cursor + keyLength])
            let matches = expected.withUTF8 { utf8 in
                utf8.count == keyLength
                    && (keyLength == 0 || memcmp(utf8.baseAddress!, stored.baseAddress!, keyLength) == 0)
            }
            guard matches else { throw .keyMismatch }
            cursor += keyLength
            key = expected
        } else {
            key = string(keyLength)
        }
        let etag = string(etagLength)
        let lastModified = string(lastModifiedLength)
        let contentType = string(contentTypeLength)
        let partition = string(partitionLength)
        func date(_ offset: Int) -> Date? {
            let seconds = Double(bitPattern: read(UInt64.self, bytes, offset))
            return seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
        }
        // Version 1 has no stale dates: its strings begin where they would be.
        let hasStaleDates = fixedLength >= fixedHeaderLength
        let metadata = CacheMetadata(
            created: date(32) ?? Date(timeIntervalSinceReferenceDate: 0),
            expires: date(40),
            freshUntil: date(48),
            etag: etag.isEmpty ? nil : etag,
            lastModified: lastModified.isEmpty ? nil : lastModified,
            contentType: contentType.isEmpty ? nil : contentType,
            staleWhileRevalidateUntil: hasStaleDates ? date(72) : nil,
            staleIfErrorUntil: hasStaleDates ? date(80) : nil,
            partition: partition.isEmpty ? nil : LRUCacheType(rawValue: partition)
        )
        return Header(
            key: key, metadata: metadata, headerLength: headerLength, bodyLength: Int(bodyLength),
            checksum: read(UInt64.self, bytes, 24)
        )
    }

    /// Checks the checksum of a decoded header and body.
    static func verify(
        header: Header, headerBytes: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer
    ) throws(Corruption) {
        var zeroed = [UInt8](UnsafeRawBufferPointer(rebasing: headerBytes[0..<header.headerLength]))
        zeroed.replaceSubrange(24..<32, with: repeatElement(0, count: 8))
        let expected = XXHash64.hash(body, seed: zeroed.withUnsafeBytes { XXHash64.hash($0) })
        guard expected == header.checksum else { throw .checksumMismatch }
    }

    /// A date as the Float64 bit pattern of its seconds since the reference date; NaN for none.
    private static func bitPattern(_ date: Date?) -> UInt64 {
        (date?.timeIntervalSinceReferenceDate ?? .nan).bitPattern
    }
}
