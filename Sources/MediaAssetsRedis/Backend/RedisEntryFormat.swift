import Foundation
import MediaAssets

/// The value a `RedisBackend` stores per entry: a versioned header, the metadata, then the bytes.
///
/// ```
/// version 3: "MARE" | 3 | capacity (UInt32) | metadata length (UInt32) | metadata | padding | bytes
/// versions 1, 2: "MARE" | version | metadata length (UInt32) | metadata | bytes
/// ```
/// (integers big-endian). The metadata goes through `CacheMetadata`'s own `Codable` conformance, so
/// a field added to it later (such as `partition`) round-trips without a format change, and a
/// reader ignores fields it does not know. Versions 2 and 3 hold it as a flat binary record
/// (`FlatRecordCoder`: a hit decodes it in a fraction of JSON's time). Version 3 leaves room after
/// it: the bytes start `capacity` bytes after the metadata's start, so new metadata that fits is
/// written in place (`SETRANGE` from `lengthOffset`) and the bytes are never sent again. Version 1,
/// JSON, is written only if the metadata ever stops being a flat record of scalars; every version is
/// read. Anything that does not decode is a miss, never wrong bytes.
enum RedisEntryFormat {
    static let magic: [UInt8] = Array("MARE".utf8)
    /// The version written: a flat record with room to grow.
    static let version: UInt8 = 3
    /// A flat record without room (read only).
    static let flatVersion: UInt8 = 2
    static let jsonVersion: UInt8 = 1
    /// Where version 3's metadata length is: a metadata update writes from here.
    static let lengthOffset = magic.count + 1 + 4
    /// How much of a value `GETRANGE` reads to see its metadata without its bytes.
    static let metadataProbeSize = 4_096

    /// Why a stored value is not an entry.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    /// Where a value's parts are.
    private struct Layout {
        var metadata: Range<Int>
        var bytesStart: Int
        var format: UInt8
    }

    static func encode(_ entry: CacheEntry) throws -> Data {
        guard let metadata = try? FlatRecordCoder.encode(entry.metadata) else {
            let json = try JSONEncoder().encode(entry.metadata)
            var value = Data(capacity: magic.count + 5 + json.count + entry.data.count)
            value.append(contentsOf: magic)
            value.append(jsonVersion)
            appendBigEndian(UInt32(json.count), to: &value)
            value.append(json)
            value.append(entry.data)
            return value
        }
        let capacity = roomFor(metadata.count)
        var value = Data(capacity: lengthOffset + 4 + capacity + entry.data.count)
        value.append(contentsOf: magic)
        value.append(version)
        appendBigEndian(UInt32(capacity), to: &value)
        value.append(metadataRecord(metadata))
        value.append(Data(count: capacity - metadata.count))
        value.append(entry.data)
        return value
    }

    /// What a metadata update writes at `lengthOffset` of a version 3 value: the new metadata's
    /// length and the metadata; nil when the metadata is not a flat record (then the entry is
    /// stored again whole).
    static func metadataUpdate(_ metadata: CacheMetadata) -> Data? {
        (try? FlatRecordCoder.encode(metadata)).map(metadataRecord)
    }

    /// The capacity given to metadata of `length` bytes: at least 64 bytes to spare (a date that
    /// appears, a longer validator), in steps of 16.
    static func roomFor(_ length: Int) -> Int { (length + 64 + 15) & ~15 }

    static func decode(_ value: Data) throws(Invalid) -> CacheEntry {
        let layout = try self.layout(value)
        guard layout.bytesStart <= value.endIndex else {
            throw Invalid(
                reason: "metadata of \(layout.metadata.count) bytes runs past the value's \(value.count) bytes")
        }
        let metadata: CacheMetadata
        do {
            if layout.format == jsonVersion {
                metadata = try JSONDecoder().decode(CacheMetadata.self, from: value[layout.metadata])
            } else {
                metadata = try FlatRecordCoder.decode(
                    CacheMetadata.self, from: try FlatRecordCoder.fields(value[layout.metadata]))
            }
        } catch let invalid as Invalid {
            throw invalid
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
        return CacheEntry(data: Data(value[layout.bytesStart...]), metadata: metadata)
    }

    /// The partition named in a value's metadata (read from a prefix of it), or nil if it names none.
    ///
    /// Decoded by field name, so it reads `CacheMetadata.partition` whichever version wrote it.
    static func partition(inPrefix value: Data) throws(Invalid) -> String? {
        let layout = try self.layout(value)
        guard layout.metadata.upperBound <= value.endIndex else { throw Invalid(reason: "metadata cut off") }
        if layout.format != jsonVersion {
            guard case .string(let partition) = try FlatRecordCoder.fields(value[layout.metadata])["partition"] else {
                return nil
            }
            return partition
        }
        struct PartitionField: Decodable { var partition: String? }
        do {
            return try JSONDecoder().decode(PartitionField.self, from: value[layout.metadata]).partition
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
    }

    /// The bytes `GETRANGE` must read to hold the whole metadata of a value whose prefix is `value`.
    static func metadataEnd(inPrefix value: Data) throws(Invalid) -> Int {
        try layout(value).metadata.upperBound
    }

    private static func layout(_ value: Data) throws(Invalid) -> Layout {
        let start = value.startIndex
        guard value.count >= magic.count + 5 else {
            throw Invalid(reason: "\(value.count) bytes is shorter than the header")
        }
        guard value[start..<start + magic.count].elementsEqual(magic) else { throw Invalid(reason: "no MARE magic") }
        let storedVersion = value[start + magic.count]
        switch storedVersion {
        case version:
            guard value.count >= lengthOffset + 4 else {
                throw Invalid(reason: "\(value.count) bytes is shorter than the header")
            }
            let capacity = bigEndian(value, at: start + magic.count + 1)
            let length = bigEndian(value, at: start + lengthOffset)
            guard length <= capacity else {
                throw Invalid(reason: "metadata of \(length) bytes is longer than its room of \(capacity)")
            }
            let metadataStart = start + lengthOffset + 4
            return Layout(
                metadata: metadataStart..<(metadataStart + length), bytesStart: metadataStart + capacity,
                format: version)
        case flatVersion, jsonVersion:
            let metadataStart = start + magic.count + 5
            let metadataEnd = metadataStart + bigEndian(value, at: start + magic.count + 1)
            return Layout(metadata: metadataStart..<metadataEnd, bytesStart: metadataEnd, format: storedVersion)
        default:
            throw Invalid(reason: "format version \(storedVersion) is none of 1, 2 and 3")
        }
    }

    /// The metadata with its length before it.
    private static func metadataRecord(_ metadata: Data) -> Data {
        var record = Data(capacity: 4 + metadata.count)
        appendBigEndian(UInt32(metadata.count), to: &record)
        record.append(metadata)
        return record
    }

    private static func appendBigEndian(_ number: UInt32, to data: inout Data) {
        withUnsafeBytes(of: number.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func bigEndian(_ value: Data, at offset: Int) -> Int {
        value[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }
}
