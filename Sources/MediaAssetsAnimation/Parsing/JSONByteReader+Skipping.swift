extension JSONByteReader {
    /// Moves past one complete JSON value of any kind, validating its syntax without building it.
    ///
    /// Iterative: nested containers are tracked on `skipStack`, never on the call stack. `depth` is
    /// the nesting depth of the value's parent, so a container here opens depth `depth + 1`.
    ///
    /// - Complexity: O(n) in the value's length.
    mutating func skipValue(depth: Int) throws {
        skipStack.removeAll(keepingCapacity: true)
        var currentDepth = depth
        while true {
            skipWhitespace()
            guard offset < count else { throw malformed("unexpected end of input, expected a value") }
            switch base[offset] {
            case UInt8(ascii: "{"):
                try openSkippedContainer(depth: &currentDepth)
                skipWhitespace()
                if offset < count, base[offset] == UInt8(ascii: "}") {
                    offset += 1
                    currentDepth -= 1
                } else {
                    try skipKeyAndColon()
                    skipStack.append(true)
                    continue
                }
            case UInt8(ascii: "["):
                try openSkippedContainer(depth: &currentDepth)
                skipWhitespace()
                if offset < count, base[offset] == UInt8(ascii: "]") {
                    offset += 1
                    currentDepth -= 1
                } else {
                    skipStack.append(false)
                    continue
                }
            case UInt8(ascii: "\""):
                _ = try skipString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try skipNumber()
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                try skipLiteral()
            default:
                throw malformed("expected a value, found \(describeByte(base[offset]))")
            }
            // A value is complete: close every container it completes, then go on to the next value.
            guard try finishSkippedValue(depth: &currentDepth) else { return }
        }
    }

    /// Consumes a `{` or `[` while skipping, enforcing the nesting limit.
    @inline(__always)
    private mutating func openSkippedContainer(depth: inout Int) throws {
        depth += 1
        guard depth <= maximumDepth else { throw LottieError.nestingTooDeep(offset: offset, limit: maximumDepth) }
        offset += 1
    }

    /// After a value inside skipped containers: consumes separators and closers.
    ///
    /// Returns true when another value follows, false when the outermost skipped value is done.
    @inline(__always)
    private mutating func finishSkippedValue(depth: inout Int) throws -> Bool {
        while let isObject = skipStack.last {
            skipWhitespace()
            guard offset < count else { throw malformed("unexpected end of input, expected ',' or a closing bracket") }
            let byte = base[offset]
            if byte == UInt8(ascii: ",") {
                offset += 1
                if isObject { try skipKeyAndColon() }
                return true
            }
            guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                throw malformed("expected ',' or '\(isObject ? "}" : "]")', found \(describeByte(byte))")
            }
            offset += 1
            depth -= 1
            skipStack.removeLast()
        }
        return false
    }

    /// Moves past an object key and its colon while skipping.
    @inline(__always)
    private mutating func skipKeyAndColon() throws {
        skipWhitespace()
        guard offset < count else { throw malformed("unexpected end of input, expected a key") }
        guard base[offset] == UInt8(ascii: "\"") else {
            throw malformed("expected a string key, found \(describeByte(base[offset]))")
        }
        _ = try skipString()
        try expect(UInt8(ascii: ":"), "':' after a key")
    }
}
