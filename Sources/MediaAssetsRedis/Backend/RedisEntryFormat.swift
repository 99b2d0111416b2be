import Foundation
import MediaAssets

/// The value a `RedisBackend` stores per entry: a versioned header, the metadata, then the bytes.
///
/// ```
/// "MARE" | version (1 byte) | metadata length (UInt32, big-endian) | metadata | bytes
/// ```
/// The metadata goes through `CacheMetadata`'s own `Codable` conformance, so a field added to it
/// later (such as `partition`) round-trips without a format change, and a reader ignores fields it
/// does not know. Version 2 holds it as a flat binary record (`FlatRecordCoder`: a hit decodes it
/// in a fraction of JSON's time); version 1, JSON, is written only if the metadata ever stops being
/// a flat record of scalars, and both are read. Anything that does not decode is a miss, never wrong bytes.
enum RedisEntryFormat {
    static let magic: [UInt8] = Array("MARE".utf8)
    static let version: UInt8 = 2
    static let jsonVersion: UInt8 = 1
    static let headerSize = magic.count + 1 + 4
    /// How much of a value `GETRANGE` reads to see its metadata without its bytes.
    static let metadataProbeSize = 4_096

    /// Why a stored value is not an entry.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    static func encode(_ entry: CacheEntry) throws -> Data {
        let (metadata, format): (Data, UInt8)
        if let flat = try? FlatRecordCoder.encode(entry.metadata) {
            (metadata, format) = (flat, version)
        } else {
            (metadata, format) = (try JSONEncoder().encode(entry.metadata), jsonVersion)
        }
        var value = Data(capacity: headerSize + metadata.count + entry.data.count)
        value.append(contentsOf: magic)
        value.append(format)
        withUnsafeBytes(of: UInt32(metadata.count).bigEndian) { value.append(contentsOf: $0) }
        value.append(metadata)
        value.append(entry.data)
        return value
    }

    static func decode(_ value: Data) throws(Invalid) -> CacheEntry {
        let (metadataRange, format) = try metadataSpan(value)
        guard metadataRange.upperBound <= value.endIndex else {
            throw Invalid(reason: "metadata of \(metadataRange.count) bytes runs past the value's \(value.count) bytes")
        }
        let metadata: CacheMetadata
        do {
            if format == version {
                metadata = try FlatRecordCoder.decode(
                    CacheMetadata.self, from: try FlatRecordCoder.fields(value[metadataRange]))
            } else {
                metadata = try JSONDecoder().decode(CacheMetadata.self, from: value[metadataRange])
            }
        } catch let invalid as Invalid {
            throw invalid
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
        return CacheEntry(data: Data(value[metadataRange.upperBound...]), metadata: metadata)
    }

    /// The partition named in a value's metadata (read from a prefix of it), or nil if it names none.
    ///
    /// Decoded by field name, so it reads `CacheMetadata.partition` whichever version wrote it.
    static func partition(inPrefix value: Data) throws(Invalid) -> String? {
        let (metadataRange, format) = try metadataSpan(value)
        guard metadataRange.upperBound <= value.endIndex else { throw Invalid(reason: "metadata cut off") }
        if format == version {
            guard case .string(let partition) = try FlatRecordCoder.fields(value[metadataRange])["partition"] else {
                return nil
            }
            return partition
        }
        struct PartitionField: Decodable { var partition: String? }
        do {
            return try JSONDecoder().decode(PartitionField.self, from: value[metadataRange]).partition
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
    }

    /// The bytes `GETRANGE` must read to hold the whole metadata of a value whose prefix is `value`.
    static func metadataEnd(inPrefix value: Data) throws(Invalid) -> Int {
        try metadataSpan(value).range.upperBound
    }

    private static func metadataSpan(_ value: Data) throws(Invalid) -> (range: Range<Int>, format: UInt8) {
        guard value.count >= headerSize else {
            throw Invalid(reason: "\(value.count) bytes is shorter than the header")
        }
        let start = value.startIndex
        guard value[start..<start + magic.count].elementsEqual(magic) else { throw Invalid(reason: "no MARE magic") }
        let storedVersion = value[start + magic.count]
        guard storedVersion == version || storedVersion == jsonVersion else {
            throw Invalid(reason: "format version \(storedVersion) is neither \(version) nor \(jsonVersion)")
        }
        var length: UInt32 = 0
        for byte in value[(start + magic.count + 1)..<(start + headerSize)] { length = length << 8 | UInt32(byte) }
        let metadataStart = start + headerSize
        return (metadataStart..<(metadataStart + Int(length)), storedVersion)
    }

}
