import Foundation

/// A compact binary form for a `Codable` value that is a flat record of scalars (as
/// `CacheMetadata` is): each present field as its name, a type tag and a value. Faster to read than
/// JSON on a cache hit, and like JSON it round-trips fields it was never told about (a field added
/// to the type later is written and read by name). A value that is not flat does not encode, and
/// the caller falls back to JSON.
///
/// ```
/// field count (UInt16) | per field: name length (UInt8) name | tag (UInt8) | value
/// tags: 1 string (UInt32 length, UTF-8) · 2 double (bit pattern) · 3 integer (Int64) · 4 bool (UInt8)
/// ```
/// Integers are big-endian.
enum FlatRecordCoder {
    enum Scalar: Equatable {
        case string(String)
        case double(Double)
        case integer(Int64)
        case bool(Bool)
    }

    struct Unsupported: Error {}

    /// Encodes `value`'s fields, or throws `Unsupported` if any is not a scalar.
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = RecordEncoder()
        try value.encode(to: encoder)
        guard !encoder.box.isUnsupported else { throw Unsupported() }
        var data = Data()
        let fields = encoder.box.fields
        guard fields.count <= Int(UInt16.max) else { throw Unsupported() }
        appendInteger(UInt16(fields.count), to: &data)
        for (name, scalar) in fields {
            let nameBytes = Array(name.utf8)
            guard nameBytes.count <= Int(UInt8.max) else { throw Unsupported() }
            data.append(UInt8(nameBytes.count))
            data.append(contentsOf: nameBytes)
            switch scalar {
            case .string(let text):
                data.append(1)
                appendInteger(UInt32(text.utf8.count), to: &data)
                data.append(contentsOf: text.utf8)
            case .double(let number):
                data.append(2)
                appendInteger(number.bitPattern, to: &data)
            case .integer(let number):
                data.append(3)
                appendInteger(number, to: &data)
            case .bool(let flag):
                data.append(4)
                data.append(flag ? 1 : 0)
            }
        }
        return data
    }

    /// Reads the fields of `bytes`; throws `Invalid` for anything malformed, never traps.
    static func fields(_ bytes: Data) throws(RedisEntryFormat.Invalid) -> [String: Scalar] {
        var reader = ByteReader(bytes: bytes)
        let count = try reader.integer(UInt16.self)
        var fields: [String: Scalar] = [:]
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            let name = String(decoding: try reader.bytes(Int(try reader.integer(UInt8.self))), as: UTF8.self)
            switch try reader.integer(UInt8.self) {
            case 1:
                fields[name] = .string(
                    String(decoding: try reader.bytes(Int(try reader.integer(UInt32.self))), as: UTF8.self))
            case 2: fields[name] = .double(Double(bitPattern: try reader.integer(UInt64.self)))
            case 3: fields[name] = .integer(try reader.integer(Int64.self))
            case 4: fields[name] = .bool(try reader.integer(UInt8.self) != 0)
            case let tag: throw RedisEntryFormat.Invalid(reason: "unknown field tag \(tag) for '\(name.prefix(50))'")
            }
        }
        guard reader.isAtEnd else { throw RedisEntryFormat.Invalid(reason: "bytes after the last field") }
        return fields
    }

    /// Decodes a `Value` from fields read by `fields(_:)`.
    static func decode<Value: Decodable>(_ type: Value.Type, from fields: [String: Scalar]) throws -> Value {
        try Value(from: RecordDecoder(fields: fields))
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }
}

/// Bounds-checked big-endian reads over a byte buffer.
private struct ByteReader {
    let bytes: Data
    var offset: Int

    init(bytes: Data) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }

    mutating func bytes(_ count: Int) throws(RedisEntryFormat.Invalid) -> Data.SubSequence {
        guard count >= 0, bytes.endIndex - offset >= count else {
            throw RedisEntryFormat.Invalid(reason: "a field runs past the metadata's end")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws(RedisEntryFormat.Invalid) -> T {
        var value: T = 0
        for byte in try bytes(MemoryLayout<T>.size) { value = value << 8 | T(byte) }
        return value
    }
}
