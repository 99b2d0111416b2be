import Foundation

/// A strict, incremental RESP2 reply parser: it reads one complete reply from the front of a byte
/// buffer, says when more bytes are needed, and rejects anything malformed with the offset of the
/// first bad byte. It never traps, whatever the input, and bounds what a reply may claim (bulk
/// length, element count, nesting) before allocating for it.
package struct RESPParser {
    /// Why bytes are not a RESP reply, and where.
    package struct Violation: Error, Sendable, Equatable {
        /// The offset of the offending byte in the parsed buffer.
        package var offset: Int
        /// What is wrong.
        package var reason: String
    }

    /// The largest bulk string accepted: Redis's own `proto-max-bulk-len` default.
    package static let maximumBulkLength = 512 << 20
    /// The most elements an array may claim.
    package static let maximumArrayCount = 1 << 20
    /// The deepest nesting of arrays accepted.
    package static let maximumDepth = 32
    /// The longest status, error or integer line accepted.
    package static let maximumLineLength = 64 << 10

    /// Parses one reply at `start`; returns it with the offset after it, or nil if the buffer ends first.
    package static func parse(
        _ buffer: UnsafeRawBufferPointer, from start: Int
    ) throws(Violation) -> (value: RESPValue, end: Int)? {
        var cursor = Cursor(buffer: buffer, offset: start)
        guard let value = try cursor.value(depth: 0) else { return nil }
        return (value, cursor.offset)
    }

    /// Parses every complete reply in `bytes`; returns them and how many bytes they took.
    package static func parseAll(_ bytes: [UInt8]) throws(Violation) -> (values: [RESPValue], consumed: Int) {
        var values: [RESPValue] = []
        var offset = 0
        let outcome: Result<Int, Violation> = bytes.withUnsafeBytes { buffer in
            do throws(Violation) {
                while let (value, end) = try parse(buffer, from: offset) {
                    values.append(value)
                    offset = end
                }
                return .success(offset)
            } catch {
                return .failure(error)
            }
        }
        return (values, try outcome.get())
    }
}

/// The parse position over one buffer.
private struct Cursor {
    let buffer: UnsafeRawBufferPointer
    var offset: Int

    mutating func value(depth: Int) throws(RESPParser.Violation) -> RESPValue? {
        guard offset < buffer.count else { return nil }
        let typeOffset = offset
        let type = buffer[offset]
        guard let line = try self.line() else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            return .simpleString(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"):
            return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"):
            return .integer(try integer(line, at: typeOffset + 1))
        case UInt8(ascii: "$"):
            return try bulkString(length: try integer(line, at: typeOffset + 1), headerOffset: typeOffset)
        case UInt8(ascii: "*"):
            return try array(count: try integer(line, at: typeOffset + 1), headerOffset: typeOffset, depth: depth)
        default:
            throw RESPParser.Violation(offset: typeOffset, reason: "unknown reply type byte 0x\(hex(type))")
        }
    }

    /// The bytes after the type byte up to CRLF, advancing past the CRLF; nil if it has not arrived.
    private mutating func line() throws(RESPParser.Violation) -> UnsafeRawBufferPointer.SubSequence? {
        let start = offset + 1
        var index = start
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\r") {
                guard index + 1 < buffer.count else { return nil }
                guard buffer[index + 1] == UInt8(ascii: "\n") else {
                    throw RESPParser.Violation(offset: index + 1, reason: "CR not followed by LF")
                }
                offset = index + 2
                return buffer[start..<index]
            }
            if byte == UInt8(ascii: "\n") {
                throw RESPParser.Violation(offset: index, reason: "LF without CR")
            }
            guard index - start < RESPParser.maximumLineLength else {
                throw RESPParser.Violation(
                    offset: index, reason: "line longer than \(RESPParser.maximumLineLength) bytes")
            }
            index += 1
        }
        return nil
    }

    private func integer(_ digits: UnsafeRawBufferPointer.SubSequence, at start: Int) throws(RESPParser.Violation)
        -> Int64
    {
        var index = digits.startIndex
        var negative = false
        if index < digits.endIndex, digits[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < digits.endIndex, digits.endIndex - index <= 19 else {
            throw RESPParser.Violation(offset: start, reason: "integer of \(digits.count) characters")
        }
        var value: Int64 = 0
        while index < digits.endIndex {
            let digit = digits[index]
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                throw RESPParser.Violation(offset: index, reason: "non-digit 0x\(hex(digit)) in an integer")
            }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else {
                throw RESPParser.Violation(offset: start, reason: "integer overflows 64 bits")
            }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }

    private mutating func bulkString(length: Int64, headerOffset: Int) throws(RESPParser.Violation) -> RESPValue? {
        if length == -1 { return .bulkString(nil) }
        guard length >= 0, length <= Int64(RESPParser.maximumBulkLength) else {
            throw RESPParser.Violation(offset: headerOffset, reason: "bulk string length \(length) out of range")
        }
        let start = offset
        let end = start + Int(length)
        guard end + 2 <= buffer.count else { return nil }
        guard buffer[end] == UInt8(ascii: "\r"), buffer[end + 1] == UInt8(ascii: "\n") else {
            throw RESPParser.Violation(offset: end, reason: "bulk string of \(length) bytes not followed by CRLF")
        }
        offset = end + 2
        return .bulkString(Data(buffer[start..<end]))
    }

    private mutating func array(count: Int64, headerOffset: Int, depth: Int) throws(RESPParser.Violation) -> RESPValue?
    {
        if count == -1 { return .array(nil) }
        guard count >= 0, count <= Int64(RESPParser.maximumArrayCount) else {
            throw RESPParser.Violation(offset: headerOffset, reason: "array count \(count) out of range")
        }
        guard depth < RESPParser.maximumDepth else {
            throw RESPParser.Violation(
                offset: headerOffset, reason: "arrays nested deeper than \(RESPParser.maximumDepth)")
        }
        // Reserve no more than the bytes present could hold (each element takes at least 3 bytes).
        var elements: [RESPValue] = []
        elements.reserveCapacity(min(Int(count), (buffer.count - offset) / 3))
        for _ in 0..<count {
            guard let element = try value(depth: depth + 1) else { return nil }
            elements.append(element)
        }
        return .array(elements)
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
}

/// Feeds arbitrary bytes to the RESP reply parser, as the connection does, and to the entry
/// decoder: every outcome must be a reply, "need more bytes" or a typed error, never a crash.
///
/// The entry point for libFuzzer targets (`Fuzz/`) and the seeded mutation test. The bytes are
/// also parsed in two arbitrary pieces, as replies arrive over a socket.
@_spi(Fuzzing) public func fuzzRESPReply(_ data: Data) {
    let bytes = [UInt8](data)
    _ = try? RESPParser.parseAll(bytes)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var stream = RESPReplyStream()
    _ = try? stream.append(bytes[..<split])
    _ = try? stream.append(bytes[split...])
    _ = try? RedisEntryFormat.decode(data)
}
