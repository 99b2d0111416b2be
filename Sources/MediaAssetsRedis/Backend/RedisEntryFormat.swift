import Foundation
import MediaAssets

/// The value a `RedisBackend` stores per entry: a versioned header, the metadata, then the bytes.
///
/// ```
/// "MARE" | version (1 byte) | metadata length (UInt32, big-endian) | metadata (JSON) | bytes
/// ```
/// The metadata goes through `CacheMetadata`'s own `Codable` conformance, so a field added to it
/// later (such as `partition`) round-trips without a format change, and a reader ignores fields it
/// does not know. Anything that does not decode is a miss, never wrong bytes.
enum RedisEntryFormat {
    static let magic: [UInt8] = Array("MARE".utf8)
    static let version: UInt8 = 1
    static let headerSize = magic.count + 1 + 4
    /// How much of a value `GETRANGE` reads to see its metadata without its bytes.
    static let metadataProbeSize = 4_096

    /// Why a stored value is not an entry.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    static func encode(_ entry: CacheEntry) throws -> Data {
        let metadata = try encoder.encode(entry.metadata)
        var value = Data(capacity: headerSize + metadata.count + entry.data.count)
        value.append(contentsOf: magic)
        value.append(version)
        withUnsafeBytes(of: UInt32(metadata.count).bigEndian) { value.append(contentsOf: $0) }
        value.append(metadata)
        value.append(entry.data)
        return value
    }

    static func decode(_ value: Data) throws(Invalid) -> CacheEntry {
        let (metadataRange, metadataBytes) = try metadataSpan(value)
        guard metadataRange.upperBound <= value.count else {
            throw Invalid(reason: "metadata of \(metadataBytes) bytes runs past the value's \(value.count) bytes")
        }
        let metadata: CacheMetadata
        do {
            metadata = try decoder.decode(CacheMetadata.self, from: value[metadataRange])
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
        return CacheEntry(data: Data(value[metadataRange.upperBound...]), metadata: metadata)
    }

    /// The partition named in a value's metadata (read from a prefix of it), or nil if it names none.
    ///
    /// Decoded by field name, so it reads `CacheMetadata.partition` whichever version wrote it.
    static func partition(inPrefix value: Data) throws(Invalid) -> String? {
        let (metadataRange, _) = try metadataSpan(value)
        guard metadataRange.upperBound <= value.count else { throw Invalid(reason: "metadata cut off") }
        struct PartitionField: Decodable { var partition: String? }
        do {
            return try decoder.decode(PartitionField.self, from: value[metadataRange]).partition
        } catch {
            throw Invalid(reason: "metadata does not decode: \(error)")
        }
    }

    /// The bytes `GETRANGE` must read to hold the whole metadata of a value whose prefix is `value`.
    static func metadataEnd(inPrefix value: Data) throws(Invalid) -> Int {
        try metadataSpan(value).range.upperBound
    }

    private static func metadataSpan(_ value: Data) throws(Invalid) -> (range: Range<Int>, count: Int) {
        guard value.count >= headerSize else { throw Invalid(reason: "\(value.count) bytes is shorter than the header") }
        let start = value.startIndex
        guard value[start..<start + magic.count].elementsEqual(magic) else { throw Invalid(reason: "no MARE magic") }
        let storedVersion = value[start + magic.count]
        guard storedVersion == version else { throw Invalid(reason: "format version \(storedVersion) is not \(version)") }
        var length: UInt32 = 0
        for byte in value[(start + magic.count + 1)..<(start + headerSize)] { length = length << 8 | UInt32(byte) }
        let metadataStart = start + headerSize
        return (metadataStart..<(metadataStart + Int(length)), Int(length))
    }

    // Dates keep the default strategy: their exact Double, so every date round-trips bit for bit.
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()
}
