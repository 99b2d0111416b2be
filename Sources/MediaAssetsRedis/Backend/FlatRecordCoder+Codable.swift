import Foundation

/// Collects the scalar fields one `encode(to:)` writes; any other shape marks the record unsupported.
final class RecordEncoder: Encoder {
    final class Box {
        var fields: [(String, FlatRecordCoder.Scalar)] = []
        var isUnsupported = false
    }

    let box = Box()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed<Key>(box: box))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing(box: box) }
    func singleValueContainer() -> any SingleValueEncodingContainer { Refusing(box: box) }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        var codingPath: [any CodingKey] = []

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: String, forKey key: Key) throws {
            box.fields.append((key.stringValue, .string(value)))
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            box.fields.append((key.stringValue, .double(value)))
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            box.fields.append((key.stringValue, .bool(value)))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            box.fields.append((key.stringValue, .integer(Int64(value))))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let date = value as? Date {
                box.fields.append((key.stringValue, .double(date.timeIntervalSinceReferenceDate)))
                return
            }
            // A wrapper of one scalar, such as a String RawRepresentable (LRUCacheType).
            let capture = ScalarCapture()
            try value.encode(to: capture)
            guard let scalar = capture.scalar, !capture.box.isUnsupported else { throw FlatRecordCoder.Unsupported() }
            box.fields.append((key.stringValue, scalar))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            box.isUnsupported = true
            return KeyedEncodingContainer(Keyed<NestedKey>(box: Box()))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing(box: box) }
        mutating func superEncoder() -> any Encoder { refusingEncoder() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { refusingEncoder() }

        private func refusingEncoder() -> any Encoder {
            box.isUnsupported = true
            return RecordEncoder()
        }
    }

    /// Takes one scalar from a single-value container; any other shape marks it unsupported.
    private final class ScalarCapture: Encoder, SingleValueEncodingContainer {
        let box = Box()
        var scalar: FlatRecordCoder.Scalar?
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            box.isUnsupported = true
            return KeyedEncodingContainer(Keyed<Key>(box: Box()))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing(box: box) }
        func singleValueContainer() -> any SingleValueEncodingContainer { self }
        func encodeNil() throws { throw FlatRecordCoder.Unsupported() }
        func encode(_ value: String) throws { scalar = .string(value) }
        func encode(_ value: Double) throws { scalar = .double(value) }
        func encode(_ value: Bool) throws { scalar = .bool(value) }
        func encode(_ value: Int) throws { scalar = .integer(Int64(value)) }
        func encode<T: Encodable>(_ value: T) throws { throw FlatRecordCoder.Unsupported() }
    }

    /// A container for shapes a flat record cannot hold: every use marks the record unsupported.
    private struct Refusing: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] = []
        var count = 0

        init(box: Box) {
            self.box = box
            box.isUnsupported = true
        }
        mutating func encodeNil() throws { throw FlatRecordCoder.Unsupported() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw FlatRecordCoder.Unsupported() }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(box: Box()))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { RecordEncoder() }
    }
}

/// Serves the fields of a flat record to one `init(from:)`.
struct RecordDecoder: Decoder {
    let fields: [String: FlatRecordCoder.Scalar]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(fields: fields))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.mismatch("an unkeyed container") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.mismatch("a single value") }

    static func mismatch(_ what: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "a flat record holds no \(what)"))
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: FlatRecordCoder.Scalar]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }
        func decodeNil(forKey key: Key) throws -> Bool { fields[key.stringValue] == nil }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            guard case .string(let text) = try scalar(key) else { throw mismatch(key, "a string") }
            return text
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            guard case .double(let number) = try scalar(key) else { throw mismatch(key, "a double") }
            return number
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            guard case .bool(let flag) = try scalar(key) else { throw mismatch(key, "a bool") }
            return flag
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            guard case .integer(let number) = try scalar(key), let value = Int(exactly: number) else {
                throw mismatch(key, "an integer")
            }
            return value
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let scalar = try scalar(key)
            if T.self == Date.self {
                guard case .double(let interval) = scalar else { throw mismatch(key, "a date") }
                return Date(timeIntervalSinceReferenceDate: interval) as! T
            }
            return try T(from: ScalarDecoder(scalar: scalar))
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> { throw RecordDecoder.mismatch("nested container") }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw RecordDecoder.mismatch("nested list")
        }
        func superDecoder() throws -> any Decoder { throw RecordDecoder.mismatch("super decoder") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw RecordDecoder.mismatch("super decoder") }

        private func scalar(_ key: Key) throws -> FlatRecordCoder.Scalar {
            guard let scalar = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: [], debugDescription: "absent"))
            }
            return scalar
        }

        private func mismatch(_ key: Key, _ expected: String) -> DecodingError {
            .typeMismatch(Any.self, DecodingError.Context(codingPath: [key], debugDescription: "expected \(expected)"))
        }
    }

    /// One scalar as a single-value container (a RawRepresentable's raw value).
    private struct ScalarDecoder: Decoder, SingleValueDecodingContainer {
        let scalar: FlatRecordCoder.Scalar
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            throw RecordDecoder.mismatch("keyed value inside a field")
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw RecordDecoder.mismatch("list in a field")
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
        func decodeNil() -> Bool { false }
        func decode(_ type: String.Type) throws -> String {
            guard case .string(let text) = scalar else { throw RecordDecoder.mismatch("string here") }
            return text
        }
        func decode(_ type: Double.Type) throws -> Double {
            guard case .double(let number) = scalar else { throw RecordDecoder.mismatch("double here") }
            return number
        }
        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let flag) = scalar else { throw RecordDecoder.mismatch("bool here") }
            return flag
        }
        func decode(_ type: Int.Type) throws -> Int {
            guard case .integer(let number) = scalar, let value = Int(exactly: number) else {
                throw RecordDecoder.mismatch("integer here")
            }
            return value
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { throw RecordDecoder.mismatch("\(T.self) here") }
    }
}
