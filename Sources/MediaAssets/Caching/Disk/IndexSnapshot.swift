import Foundation

/// The index as `close()` leaves it, so that the pass at next open has the records (recency, learnt
/// expiries) at once, from one file, while it lists the directory to check them (measured at a million
/// entries from a cold page cache: the scan 20.6 s, the 48 MB snapshot 0.59 s).
///
/// ```
/// offset  size  field
///      0     4  magic "MADI"
///      4     2  format version (1)
///      6     2  reserved (0)
///      8     8  record count
///     16  48·n  records, least recently used first: name (high, low), size, last access (Float64
///               seconds since the reference date), expiry (Float64: NaN unknown, +infinity never), inode
///    end     8  XXH64 of everything before
/// ```
/// All integers are little-endian. The snapshot is used only when the lock file holds the mark
/// `close()` wrote after it (see `DiskCache+Snapshot.swift`), and even then every record is checked
/// against its file; anything else, and any damage, means the pass starts from nothing, so a crash, a
/// torn or an older snapshot costs time, never correctness.
enum IndexSnapshot: LittleEndianFormat {
    static let fileName = ".index"
    static let magic: [UInt8] = Array("MADI".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 16
    static let recordLength = 48

    /// Why a snapshot was not used.
    enum Corruption: Error {
        case tooShort, badMagic, unsupportedVersion, badLength, checksumMismatch, duplicateName
    }

    /// Encodes `records` oldest first, with the trailing checksum.
    static func encode(_ records: DiskRecords) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerLength + records.count * recordLength + 8)
        bytes += magic
        append(formatVersion, to: &bytes)
        append(UInt16(0), to: &bytes)
        append(UInt64(records.count), to: &bytes)
        records.forEachOldestFirst { name, record in
            append(name.high, to: &bytes)
            append(name.low, to: &bytes)
            append(UInt64(record.size), to: &bytes)
            append(record.lastAccess.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
            append(record.expiry.storedSeconds.bitPattern, to: &bytes)
            append(record.inode, to: &bytes)
        }
        let checksum = bytes.withUnsafeBytes { XXHash64.hash($0) }
        append(checksum, to: &bytes)
        return bytes
    }

    /// Decodes a snapshot into fresh records, checking its length, checksum and names.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Corruption) -> DiskRecords {
        guard bytes.count >= headerLength + 8 else { throw .tooShort }
        guard bytes.prefix(4).elementsEqual(magic) else { throw .badMagic }
        guard read(UInt16.self, bytes, 4) == formatVersion else { throw .unsupportedVersion }
        let count = read(UInt64.self, bytes, 8)
        // Compared by division: a hostile count must not overflow.
        let recordBytes = bytes.count - headerLength - 8
        guard recordBytes % recordLength == 0, count == UInt64(recordBytes / recordLength) else { throw .badLength }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])
        guard XXHash64.hash(body) == read(UInt64.self, bytes, bytes.count - 8) else { throw .checksumMismatch }

        var records = DiskRecords()
        records.reserveCapacity(Int(count))
        for position in 0..<Int(count) {
            let offset = headerLength + position * recordLength
            let name = EntryName(high: read(UInt64.self, bytes, offset), low: read(UInt64.self, bytes, offset + 8))
            let size = read(UInt64.self, bytes, offset + 16)
            let lastAccess = Double(bitPattern: read(UInt64.self, bytes, offset + 24))
            let expirySeconds = Double(bitPattern: read(UInt64.self, bytes, offset + 32))
            guard size <= UInt64(Int.max / 2), lastAccess.isFinite, records.record(for: name) == nil else {
                throw .duplicateName
            }
            let record = DiskRecords.Record(
                size: Int(size), lastAccess: Date(timeIntervalSinceReferenceDate: lastAccess),
                expiry: DiskIndex.Expiry(storedSeconds: expirySeconds),
                inode: read(UInt64.self, bytes, offset + 40), isVerified: false
            )
            records.set(record, for: name)
        }
        return records
    }
}

/// Feeds arbitrary bytes to the disk cache's index snapshot decoder as if they were the `.index`
/// file a clean close left; it must never crash, whatever the bytes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzIndexSnapshot(_ data: Data) {
    _ = data.withUnsafeBytes { try? IndexSnapshot.decode($0) }
}
