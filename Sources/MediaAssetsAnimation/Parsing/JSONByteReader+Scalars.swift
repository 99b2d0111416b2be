import Foundation

extension JSONByteReader {
    // MARK: Strings

    /// Moves past the string at `offset` (which must be `"`), validating escapes and control bytes.
    ///
    /// Returns whether the string held escapes. UTF-8 is validated only for strings that are read.
    @inline(__always)
    mutating func skipString() throws -> Bool {
        let start = offset
        offset += 1
        var hadEscapes = false
        while offset < count {
            let byte = base[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return hadEscapes
            }
            if byte == UInt8(ascii: "\\") {
                hadEscapes = true
                try skipEscape()
            } else if byte < 0x20 {
                throw malformed("unescaped control character \(describeByte(byte)) in a string")
            } else {
                offset += 1
            }
        }
        throw LottieError.malformedJSON(offset: count, reason: "unterminated string starting at byte \(start)")
    }

    /// Moves past one escape sequence at `offset` (a backslash), validating it.
    private mutating func skipEscape() throws {
        guard offset + 1 < count else { throw malformed("unterminated escape sequence") }
        switch base[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            offset += 2
        case UInt8(ascii: "u"):
            guard offset + 5 < count, hexValue(at: offset + 2) != nil else {
                throw malformed("\\u must be followed by four hexadecimal digits")
            }
            offset += 6
        default:
            throw malformed("invalid escape sequence \\\(describeByte(base[offset + 1]))")
        }
    }

    /// The value of the four hex digits at `index`, or nil if they are not all hex digits (or run past the end).
    func hexValue(at index: Int) -> UInt32? {
        guard index >= 0, index + 4 <= count else { return nil }
        var value: UInt32 = 0
        for position in index..<(index + 4) {
            let byte = base[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Reads the string at `offset` (which must be `"`), decoding escapes and validating UTF-8.
    ///
    /// `\uXXXX` escapes combine surrogate pairs; an unpaired surrogate is malformed.
    mutating func readString() throws -> String {
        let start = offset + 1
        let hadEscapes = try skipString()
        let end = offset - 1
        if !hadEscapes {
            let buffer = UnsafeBufferPointer(start: base + start, count: end - start)
            guard let text = String(validating: buffer, as: UTF8.self) else {
                throw LottieError.malformedJSON(offset: start, reason: "invalid UTF-8 in a string")
            }
            return text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = base[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escaped = base[index + 1]
            guard escaped == UInt8(ascii: "u") else {
                bytes.append(Self.unescaped(escaped))
                index += 2
                continue
            }
            let scalar = try decodeUnicodeEscape(at: &index, end: end)
            bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw LottieError.malformedJSON(offset: start, reason: "invalid UTF-8 in a string")
        }
        return text
    }

    /// Decodes `\uXXXX` (and a following low surrogate) at `index`, advancing past it.
    private func decodeUnicodeEscape(at index: inout Int, end: Int) throws -> Unicode.Scalar {
        let escapeStart = index
        guard let unit = hexValue(at: index + 2) else {
            throw LottieError.malformedJSON(offset: escapeStart, reason: "invalid \\u escape")
        }
        index += 6
        var value = unit
        if (0xD800...0xDBFF).contains(unit) {
            guard index + 6 <= end, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u"),
                let low = hexValue(at: index + 2), (0xDC00...0xDFFF).contains(low)
            else {
                throw LottieError.malformedJSON(offset: escapeStart, reason: "unpaired high surrogate in a \\u escape")
            }
            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            index += 6
        } else if (0xDC00...0xDFFF).contains(unit) {
            throw LottieError.malformedJSON(offset: escapeStart, reason: "unpaired low surrogate in a \\u escape")
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw LottieError.malformedJSON(offset: escapeStart, reason: "invalid code point in a \\u escape")
        }
        return scalar
    }

    /// The byte a single-character escape stands for (already validated by `skipEscape`).
    private static func unescaped(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return byte
        }
    }

    // MARK: Numbers and literals

    /// Moves past the number at `offset`, validating JSON number grammar; returns whether it is a plain integer.
    @inline(__always)
    @discardableResult
    mutating func skipNumber() throws -> Bool {
        var index = offset
        var isInteger = true
        if base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count, Self.isDigit(base[index]) else { throw numberError(at: index) }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < count, Self.isDigit(base[index]) { index += 1 }
        }
        if index < count, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < count, Self.isDigit(base[index]) else { throw numberError(at: index) }
            while index < count, Self.isDigit(base[index]) { index += 1 }
        }
        if index < count, base[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            guard index < count, Self.isDigit(base[index]) else { throw numberError(at: index) }
            while index < count, Self.isDigit(base[index]) { index += 1 }
        }
        offset = index
        return isInteger
    }

    /// Reads the number at `offset` as a `Double`.
    mutating func readNumber() throws -> Double {
        let start = offset
        let isInteger = try skipNumber()
        let length = offset - start
        if isInteger, length <= 16 {
            var value = 0
            var index = start
            let negative = base[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            while index < offset {
                value = value * 10 + Int(base[index] - UInt8(ascii: "0"))
                index += 1
            }
            return Double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: length), as: UTF8.self)
        guard let value = Double(text) else {
            throw LottieError.malformedJSON(offset: start, reason: "unreadable number")
        }
        return value
    }

    /// Consumes the literal `true`, `false` or `null` at `offset`.
    @inline(__always)
    mutating func skipLiteral() throws {
        let literal: StaticString
        switch base[offset] {
        case UInt8(ascii: "t"): literal = "true"
        case UInt8(ascii: "f"): literal = "false"
        default: literal = "null"
        }
        let length = literal.utf8CodeUnitCount
        guard offset + length <= count, memcmp(base + offset, literal.utf8Start, length) == 0 else {
            throw malformed("invalid literal, expected \(literal)")
        }
        offset += length
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    private func numberError(at index: Int) -> LottieError {
        .malformedJSON(offset: index, reason: "invalid number, expected a digit")
    }
}
