import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The layout of one disk cache file: a header, then the entry's bytes.
///
/// Version 3, which stores write, keeps the metadata in two slots of a fixed capacity, so that a
/// revalidation (a 304) replaces it in place without writing the bytes again:
/// ```
/// offset  size  field
///      0     4  magic "MADC"
///      4     2  format version (3)
///      6     2  reserved (0)
///      8     4  header length (everything before the body: fixed part, slots, key)
///     12     4  key length
///     16     8  body length
///     24     8  body checksum: XXH64 of the body, seeded with XXH64 of the key, seeded with XXH64 of
///               these 40 bytes with this field zeroed (a damaged length or key fails it too)
///     32     4  slot capacity: the bytes of each metadata slot
///     36     4  reserved (0)
///     40   cap  metadata slot 0
/// 40+cap   cap  metadata slot 1
/// 40+2cap    …  key (UTF-8), then the body
/// ```
/// A metadata slot:
/// ```
///      0     8  checksum: XXH64 of bytes 8 ..< 16 + used, seeded with the body checksum
///      8     8  sequence: of two valid slots the one with the larger sequence is current
///     16     4  used: the bytes from offset 16 on that hold metadata (64 + the strings)
///     20     4  reserved (0)
///     24     8  created (seconds since 2001-01-01, Foundation's reference date, Float64: exact)
///     32     8  expires   40  8  fresh until   48  8  stale-while-revalidate until
///     56     8  stale-if-error until (each NaN when none)
///     64     4  ETag length   68  4  Last-Modified length   72  4  content type length
///     76     4  partition length (0 for none)
///     80     …  ETag, Last-Modified, content type, partition (UTF-8)
/// ```
/// A metadata update writes the slot that is not current with the next sequence, in one `pwrite`
/// within the file's first page: a kill or a reader at any moment sees the old slot or the new one
/// whole (a torn slot fails its checksum, and the other is still valid). The body and its checksum
/// never change, so the whole-body check a first read made stays good.
///
/// All integers are little-endian. The last-access time is the file's modification time, which the
/// cache updates lazily. Any mismatch (magic, version, lengths, checksums, key, no valid slot) makes
/// the file a miss, and the cache removes it.
///
/// Files of versions 1 and 2, written before, are still read so that a cache survives the upgrade:
/// one metadata block inside the header, covered by one checksum of header and body (version 1 has no
/// stale dates: its fixed part ends at offset 72, where the key begins; version 2's at 88). Updating
/// the metadata of such a file rewrites it as version 3.
enum EntryFile: LittleEndianFormat {
    static let magic: [UInt8] = Array("MADC".utf8)
    /// The version stores write.
    static let formatVersion: UInt16 = 3
    /// The fixed part of a version 3 header, before the metadata slots.
    static let fixedHeaderLength = 40
    /// The fixed part of a version 1 header, the longest a version's fixed part is before its length
    /// fields: a reader that has this many bytes can tell any version's header length.
    static let smallestFixedHeaderLength = 72
    /// Header lengths above this are treated as corruption rather than read.
    static let maxHeaderLength = 64 << 20
    /// A slot's fixed part: checksum, sequence, used, reserved, five dates, four lengths.
    static let slotFixedLength = 80
    /// Room each slot keeps beyond the metadata it was written with, so that an update whose ETag or
    /// Last-Modified grows a little still fits in place.
    static let slotSlack = 64

    /// The decoded header of an entry file.
    struct Header {
        var key: String
        var metadata: CacheMetadata
        var headerLength: Int
        var bodyLength: Int
        /// Version 3: the body checksum; earlier versions: the checksum of header and body.
        var checksum: UInt64
        var version: UInt16
        /// Version 3: the slots and which one is current; nil for earlier versions.
        var slots: Slots?
    }

    /// Where a version 3 file keeps its metadata.
    struct Slots: Equatable {
        var capacity: Int
        /// The current slot (0 or 1) and its sequence.
        var current: Int
        var sequence: UInt64

        /// The offset of slot `index` in the file.
        func offset(of index: Int) -> Int { fixedHeaderLength + index * capacity }
    }

    /// Why a file was rejected.
    enum Corruption: Error {
        case tooShort, badMagic, unsupportedVersion, badLengths, checksumMismatch, keyMismatch, noValidMetadata
    }

    // MARK: Encoding

    /// Encodes the header for `entry` under `key` (version 3), checksums included.
    static func encodeHeader(key: CacheKey, entry: CacheEntry) -> [UInt8] {
        let keyBytes = Array(key.rawValue.utf8)
        let capacity = slotCapacity(for: entry.metadata)
        let headerLength = fixedHeaderLength + 2 * capacity + keyBytes.count
        var header = [UInt8]()
        header.reserveCapacity(headerLength)
        header += magic
        append(formatVersion, to: &header)
        append(UInt16(0), to: &header)
        append(UInt32(truncatingIfNeeded: headerLength), to: &header)
        append(UInt32(truncatingIfNeeded: keyBytes.count), to: &header)
        append(UInt64(entry.data.count), to: &header)
        append(UInt64(0), to: &header)  // body checksum, filled in below
        append(UInt32(capacity), to: &header)
        append(UInt32(0), to: &header)
        let checksum = entry.data.withUnsafeBytes { body in
            header.withUnsafeBytes { fixed in
                keyBytes.withUnsafeBytes { key in bodyChecksum(fixed: fixed, key: key, body: body) }
            }
        }
        withUnsafeBytes(of: checksum.littleEndian) { header.replaceSubrange(24..<32, with: $0) }
        header += encodeSlot(entry.metadata, sequence: 1, capacity: capacity, bodyChecksum: checksum)!
        appendZeros(capacity, to: &header)
        header += keyBytes
        return header
    }

    /// The slot capacity a file written with `metadata` gets: what it needs, rounded up, plus slack.
    static func slotCapacity(for metadata: CacheMetadata) -> Int {
        (slotFixedLength + stringBytes(metadata).reduce(0) { $0 + $1.count } + 15) / 16 * 16 + slotSlack
    }

    /// A slot of `capacity` bytes holding `metadata` with `sequence`, or nil if it does not fit.
    static func encodeSlot(
        _ metadata: CacheMetadata, sequence: UInt64, capacity: Int, bodyChecksum: UInt64
    ) -> [UInt8]? {
        let strings = stringBytes(metadata)
        let used = slotFixedLength - 16 + strings.reduce(0) { $0 + $1.count }
        guard 16 + used <= capacity else { return nil }
        var slot = [UInt8]()
        slot.reserveCapacity(capacity)
        append(UInt64(0), to: &slot)  // checksum, filled in below
        append(sequence, to: &slot)
        append(UInt32(used), to: &slot)
        append(UInt32(0), to: &slot)
        append(metadata.created.timeIntervalSinceReferenceDate.bitPattern, to: &slot)
        for date in [
            metadata.expires, metadata.freshUntil, metadata.staleWhileRevalidateUntil, metadata.staleIfErrorUntil,
        ] {
            append(bitPattern(date), to: &slot)
        }
        for string in strings { append(UInt32(string.count), to: &slot) }
        for string in strings { slot += string }
        let checksum = slot.withUnsafeBytes {
            XXHash64.hash(UnsafeRawBufferPointer(rebasing: $0[8...]), seed: bodyChecksum)
        }
        withUnsafeBytes(of: checksum.littleEndian) { slot.replaceSubrange(0..<8, with: $0) }
        appendZeros(capacity - slot.count, to: &slot)
        return slot
    }

    /// ETag, Last-Modified, content type and partition as UTF-8, in the order files hold them.
    private static func stringBytes(_ metadata: CacheMetadata) -> [[UInt8]] {
        [metadata.etag, metadata.lastModified, metadata.contentType, metadata.partition?.rawValue].map {
            Array(($0 ?? "").utf8)
        }
    }

    private static func bodyChecksum(
        fixed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer
    ) -> UInt64 {
        var zeroed = [UInt8](UnsafeRawBufferPointer(rebasing: fixed[0..<fixedHeaderLength]))
        zeroChecksumField(of: &zeroed)
        let seed = zeroed.withUnsafeBytes { XXHash64.hash(key, seed: XXHash64.hash($0)) }
        return XXHash64.hash(body, seed: seed)
    }

    // MARK: Decoding

    /// The header length an encoded file declares, read from its first 12 bytes (`prefix` holds at
    /// least `smallestFixedHeaderLength` bytes, or the whole file if shorter).
    static func declaredHeaderLength(_ prefix: UnsafeRawBufferPointer) throws(Corruption) -> Int {
        try declaredLayout(prefix).headerLength
    }

    /// The version, the fixed part's length and the header length the file declares, checked against
    /// each other and against `maxHeaderLength`.
    private static func declaredLayout(
        _ prefix: UnsafeRawBufferPointer
    ) throws(Corruption) -> (version: UInt16, fixedLength: Int, headerLength: Int) {
        guard prefix.count >= fixedHeaderLength else { throw .tooShort }
        guard prefix.prefix(4).elementsEqual(magic) else { throw .badMagic }
        let version = read(UInt16.self, prefix, 4)
        let fixedLength: Int
        switch version {
        case 1: fixedLength = 72
        case 2: fixedLength = 88
        case formatVersion: fixedLength = fixedHeaderLength
        default: throw .unsupportedVersion
        }
        guard prefix.count >= fixedLength else { throw .tooShort }
        let headerLength = Int(read(UInt32.self, prefix, 8))
        guard headerLength >= fixedLength, headerLength <= maxHeaderLength else { throw .badLengths }
        return (version, fixedLength, headerLength)
    }

    /// Decodes a complete header (`bytes` holds at least the declared header length).
    ///
    /// With `expectedKey`, a file holding another key throws `keyMismatch`, and the key is compared
    /// in place rather than decoded into a new string (a hit allocates no copy of its key).
    static func decodeHeader(
        _ bytes: UnsafeRawBufferPointer, fileSize: Int, expectedKey: String? = nil
    ) throws(Corruption) -> Header {
        let (version, fixedLength, headerLength) = try declaredLayout(bytes)
        guard bytes.count >= headerLength else { throw .tooShort }
        let keyLength = Int(read(UInt32.self, bytes, 12))
        let bodyLength = read(UInt64.self, bytes, 16)
        // Compared without adding: a hostile body length must not overflow.
        guard fileSize >= headerLength, bodyLength == UInt64(fileSize - headerLength) else { throw .badLengths }
        guard version == formatVersion else {
            return try decodeSingleBlock(bytes, version: version, fixedLength: fixedLength, expectedKey: expectedKey)
        }
        let capacity = Int(read(UInt32.self, bytes, 32))
        guard capacity >= slotFixedLength, capacity <= maxHeaderLength / 2,
            keyLength <= maxHeaderLength, fixedHeaderLength + 2 * capacity + keyLength == headerLength
        else { throw .badLengths }
        let key = try decodeKey(bytes, at: fixedHeaderLength + 2 * capacity, length: keyLength, expected: expectedKey)
        let bodyChecksum = read(UInt64.self, bytes, 24)
        var best: (index: Int, sequence: UInt64, metadata: CacheMetadata)?
        for index in 0..<2 {
            let offset = fixedHeaderLength + index * capacity
            let slot = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + capacity])
            guard let (sequence, metadata) = decodeSlot(slot, bodyChecksum: bodyChecksum) else { continue }
            if best == nil || sequence > best!.sequence { best = (index, sequence, metadata) }
        }
        guard let best else { throw .noValidMetadata }
        return Header(
            key: key, metadata: best.metadata, headerLength: headerLength, bodyLength: Int(bodyLength),
            checksum: bodyChecksum, version: version,
            slots: Slots(capacity: capacity, current: best.index, sequence: best.sequence)
        )
    }

    // Byte filling without `repeatElement` or generic algorithms over ranges: an unoptimised build runs those
    // element by element through the standard library's generic collection code, whose metadata lookups take
    // a lock in the runtime; every disk hit checks a header, and under ThreadSanitizer, with a hundred threads,
    // that lock held the test run up for minutes.

    /// Appends `count` zero bytes.
    private static func appendZeros(_ count: Int, to bytes: inout [UInt8]) {
        guard count > 0 else { return }
        bytes.append(contentsOf: [UInt8](repeating: 0, count: count))
    }

    /// Zeroes bytes 24..<32 of a header (its checksum), which the checksum itself is computed without.
    private static func zeroChecksumField(of header: inout [UInt8]) {
        header.withUnsafeMutableBytes { bytes in _ = memset(bytes.baseAddress! + 24, 0, 8) }
    }

    /// A slot's sequence and metadata, or nil if it is empty, torn or damaged.
    private static func decodeSlot(
        _ slot: UnsafeRawBufferPointer, bodyChecksum: UInt64
    ) -> (UInt64, CacheMetadata)? {
        let used = Int(read(UInt32.self, slot, 16))
        guard used >= slotFixedLength - 16, used <= slot.count - 16 else { return nil }
        let checked = UnsafeRawBufferPointer(rebasing: slot[8..<16 + used])
        guard XXHash64.hash(checked, seed: bodyChecksum) == read(UInt64.self, slot, 0) else { return nil }
        let lengths = [64, 68, 72, 76].map { Int(read(UInt32.self, slot, $0)) }
        // Compared one by one: hostile lengths must not overflow a sum.
        var cursor = slotFixedLength
        var strings: [String] = []
        for length in lengths {
            guard length <= 16 + used - cursor else { return nil }
            strings.append(
                String(decoding: UnsafeRawBufferPointer(rebasing: slot[cursor..<cursor + length]), as: UTF8.self))
            cursor += length
        }
        guard cursor == 16 + used else { return nil }
        let metadata = CacheMetadata(
            created: date(slot, 24) ?? Date(timeIntervalSinceReferenceDate: 0),
            expires: date(slot, 32),
            freshUntil: date(slot, 40),
            etag: strings[0].isEmpty ? nil : strings[0],
            lastModified: strings[1].isEmpty ? nil : strings[1],
            contentType: strings[2].isEmpty ? nil : strings[2],
            staleWhileRevalidateUntil: date(slot, 48),
            staleIfErrorUntil: date(slot, 56),
            partition: strings[3].isEmpty ? nil : LRUCacheType(rawValue: strings[3])
        )
        return (read(UInt64.self, slot, 8), metadata)
    }

    /// Decodes a version 1 or 2 header: one metadata block between the fixed part and the key's end.
    private static func decodeSingleBlock(
        _ bytes: UnsafeRawBufferPointer, version: UInt16, fixedLength: Int, expectedKey: String?
    ) throws(Corruption) -> Header {
        let headerLength = Int(read(UInt32.self, bytes, 8))
        let keyLength = Int(read(UInt32.self, bytes, 12))
        let etagLength = Int(read(UInt32.self, bytes, 56))
        let lastModifiedLength = Int(read(UInt32.self, bytes, 60))
        let contentTypeLength = Int(read(UInt32.self, bytes, 64))
        let partitionLength = Int(read(UInt32.self, bytes, 68))
        let stringsLength = keyLength + etagLength + lastModifiedLength + contentTypeLength + partitionLength
        guard fixedLength + stringsLength == headerLength else { throw .badLengths }

        let key = try decodeKey(bytes, at: fixedLength, length: keyLength, expected: expectedKey)
        var cursor = fixedLength + keyLength
        func string(_ length: Int) -> String {
            defer { cursor += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[cursor..<cursor + length]), as: UTF8.self)
        }
        let etag = string(etagLength)
        let lastModified = string(lastModifiedLength)
        let contentType = string(contentTypeLength)
        let partition = string(partitionLength)
        // Version 1 has no stale dates: its strings begin where they would be.
        let hasStaleDates = version >= 2
        let metadata = CacheMetadata(
            created: date(bytes, 32) ?? Date(timeIntervalSinceReferenceDate: 0),
            expires: date(bytes, 40),
            freshUntil: date(bytes, 48),
            etag: etag.isEmpty ? nil : etag,
            lastModified: lastModified.isEmpty ? nil : lastModified,
            contentType: contentType.isEmpty ? nil : contentType,
            staleWhileRevalidateUntil: hasStaleDates ? date(bytes, 72) : nil,
            staleIfErrorUntil: hasStaleDates ? date(bytes, 80) : nil,
            partition: partition.isEmpty ? nil : LRUCacheType(rawValue: partition)
        )
        return Header(
            key: key, metadata: metadata, headerLength: headerLength, bodyLength: Int(read(UInt64.self, bytes, 16)),
            checksum: read(UInt64.self, bytes, 24), version: version, slots: nil
        )
    }

    /// The key at `offset`; with `expected`, compared in place (no copy) and returned as given.
    private static func decodeKey(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, length: Int, expected: String?
    ) throws(Corruption) -> String {
        let stored = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        guard var expected else { return String(decoding: stored, as: UTF8.self) }
        let matches = expected.withUTF8 { utf8 in
            utf8.count == length && (length == 0 || memcmp(utf8.baseAddress!, stored.baseAddress!, length) == 0)
        }
        guard matches else { throw .keyMismatch }
        return expected
    }

    /// Checks the checksum of a decoded header and body: version 3's body checksum, or the whole-file
    /// checksum of earlier versions.
    static func verify(
        header: Header, headerBytes: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer
    ) throws(Corruption) {
        let expected: UInt64
        if let slots = header.slots {
            let keyOffset = fixedHeaderLength + 2 * slots.capacity
            let key = UnsafeRawBufferPointer(rebasing: headerBytes[keyOffset..<header.headerLength])
            expected = bodyChecksum(fixed: headerBytes, key: key, body: body)
        } else {
            var zeroed = [UInt8](UnsafeRawBufferPointer(rebasing: headerBytes[0..<header.headerLength]))
            zeroChecksumField(of: &zeroed)
            expected = XXHash64.hash(body, seed: zeroed.withUnsafeBytes { XXHash64.hash($0) })
        }
        guard expected == header.checksum else { throw .checksumMismatch }
    }

    /// The date stored at `offset` (NaN or infinite: none).
    private static func date(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Date? {
        let seconds = Double(bitPattern: read(UInt64.self, bytes, offset))
        return seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
    }

    /// A date as the Float64 bit pattern of its seconds since the reference date; NaN for none.
    private static func bitPattern(_ date: Date?) -> UInt64 {
        (date?.timeIntervalSinceReferenceDate ?? .nan).bitPattern
    }
}

/// Feeds arbitrary bytes to the disk cache's entry-file parser as if they were a file read from
/// the cache directory: the header is decoded and, if it decodes, the checksum verified. It must
/// never crash, whatever the bytes; the libFuzzer target in `Fuzz/` calls it.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzDiskEntryFile(_ data: Data) {
    data.withUnsafeBytes { bytes in
        guard let header = try? EntryFile.decodeHeader(bytes, fileSize: bytes.count) else { return }
        let body = UnsafeRawBufferPointer(rebasing: bytes[header.headerLength...])
        _ = try? EntryFile.verify(header: header, headerBytes: bytes, body: body)
    }
}
