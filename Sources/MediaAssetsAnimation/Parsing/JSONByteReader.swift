import Foundation

/// A single-pass, pull-style JSON reader over raw bytes.
///
/// The model parser asks for exactly the values it keeps and skips the rest with `skipValue`,
/// which validates syntax without building anything. Nothing here recurses: nesting is tracked
/// with a depth counter and an explicit stack, bounded by `maximumDepth`.
///
/// The bytes must stay valid for the reader's lifetime (it lives inside `withUnsafeBytes`).
struct JSONByteReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    let maximumDepth: Int
    /// The index of the next unread byte.
    var offset = 0
    /// Open containers while skipping: `true` for an object, `false` for an array. Reused across skips.
    var skipStack: [Bool] = []

    init(base: UnsafePointer<UInt8>, count: Int, maximumDepth: Int) {
        self.base = base
        self.count = count
        self.maximumDepth = maximumDepth
        skipStack.reserveCapacity(64)
    }

    // MARK: Bytes

    /// Moves past spaces, tabs, carriage returns and line feeds.
    @inline(__always)
    mutating func skipWhitespace() {
        while offset < count {
            switch base[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; throws at the end of input.
    @inline(__always)
    mutating func peekValueStart() throws -> UInt8 {
        skipWhitespace()
        guard offset < count else { throw malformed("unexpected end of input, expected a value") }
        return base[offset]
    }

    /// Consumes `byte` after optional whitespace, or throws naming what was expected.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ expectation: StaticString) throws {
        skipWhitespace()
        guard offset < count else { throw malformed("unexpected end of input, expected \(expectation)") }
        guard base[offset] == byte else {
            throw malformed("expected \(expectation), found \(describeByte(base[offset]))")
        }
        offset += 1
    }

    /// Throws unless only whitespace remains.
    mutating func expectEnd() throws {
        skipWhitespace()
        if offset < count { throw malformed("unexpected \(describeByte(base[offset])) after the top-level value") }
    }

    // MARK: Containers

    /// Consumes `{` and returns whether the object is empty (its `}` consumed too).
    mutating func beginObject(depth: Int) throws -> Bool {
        skipWhitespace()
        guard depth <= maximumDepth else { throw LottieError.nestingTooDeep(offset: offset, limit: maximumDepth) }
        try expect(UInt8(ascii: "{"), "'{'")
        skipWhitespace()
        if offset < count, base[offset] == UInt8(ascii: "}") {
            offset += 1
            return true
        }
        return false
    }

    /// Consumes `[` and returns whether the array is empty (its `]` consumed too).
    mutating func beginArray(depth: Int) throws -> Bool {
        skipWhitespace()
        guard depth <= maximumDepth else { throw LottieError.nestingTooDeep(offset: offset, limit: maximumDepth) }
        try expect(UInt8(ascii: "["), "'['")
        skipWhitespace()
        if offset < count, base[offset] == UInt8(ascii: "]") {
            offset += 1
            return true
        }
        return false
    }

    /// After a member or element: consumes `,` and returns true, or consumes `closer` and returns false.
    @inline(__always)
    mutating func continueContainer(closer: UInt8) throws -> Bool {
        skipWhitespace()
        guard offset < count else { throw malformed("unexpected end of input, expected ',' or a closing bracket") }
        let byte = base[offset]
        if byte == UInt8(ascii: ",") {
            offset += 1
            return true
        }
        if byte == closer {
            offset += 1
            return false
        }
        throw malformed("expected ',' or '\(Character(Unicode.Scalar(closer)))', found \(describeByte(byte))")
    }

    /// Reads an object key and its colon, returning the key packed for fast comparison.
    @inline(__always)
    mutating func readKey() throws -> JSONKey {
        skipWhitespace()
        guard offset < count else { throw malformed("unexpected end of input, expected a key") }
        guard base[offset] == UInt8(ascii: "\"") else {
            throw malformed("expected a string key, found \(describeByte(base[offset]))")
        }
        let start = offset + 1
        let hadEscapes = try skipString()
        let key: JSONKey
        if hadEscapes {
            offset = start - 1
            key = JSONKey(bytes: Array(try readString().utf8))
        } else {
            key = JSONKey(base: base + start, count: offset - 1 - start)
        }
        try expect(UInt8(ascii: ":"), "':' after a key")
        return key
    }

    /// Reads an object key as text, and its colon; for documents with long keys, where speed matters less.
    mutating func readKeyText() throws -> String {
        skipWhitespace()
        guard offset < count, base[offset] == UInt8(ascii: "\"") else {
            throw malformed(
                offset < count
                    ? "expected a string key, found \(describeByte(base[offset]))"
                    : "unexpected end of input, expected a key")
        }
        let key = try readString()
        try expect(UInt8(ascii: ":"), "':' after a key")
        return key
    }

    // MARK: Errors

    /// A `malformedJSON` error at the current offset.
    func malformed(_ reason: String) -> LottieError {
        .malformedJSON(offset: offset, reason: reason)
    }

    /// A readable name for a byte in an error message.
    func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    /// The JSON type starting with `byte`, for type-mismatch messages.
    static func kindName(of byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }
}

extension JSONByteReader {
    /// Runs `body` with a reader over the whole of `data`, after the checks every document gets: the
    /// size limit (before reading a byte), empty input, and a UTF-8 byte order mark skipped.
    ///
    /// - Throws: `LottieError.inputTooLarge` or `.malformedJSON`, or what `body` throws.
    static func reading<Result>(
        _ data: Data, options: LottieParsingOptions, _ body: (inout JSONByteReader) throws -> Result
    ) throws -> Result {
        guard data.count <= options.maximumInputSize else {
            throw LottieError.inputTooLarge(size: data.count, limit: options.maximumInputSize)
        }
        return try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else {
                throw LottieError.malformedJSON(offset: 0, reason: "empty input")
            }
            var reader = JSONByteReader(
                base: base.assumingMemoryBound(to: UInt8.self), count: raw.count,
                maximumDepth: options.maximumNestingDepth
            )
            if raw.count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF { reader.offset = 3 }
            return try body(&reader)
        }
    }
}
