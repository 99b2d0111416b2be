/// Reads a byte range from the command line.
public enum ByteRangeArgument {
    /// `START-END` (both inclusive, as in an HTTP `Range` header) or `START-` (to the end of a
    /// resource of `length` bytes), as a half-open range.
    ///
    /// - Throws: `ExampleError.usage` for another form, or a range outside `0..<length`.
    public static func parse(_ text: String, length: Int) throws -> Range<Int> {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0]), start >= 0 else {
            throw ExampleError.usage(reason: "bad range \(text): expected START-END or START- (byte positions)")
        }
        let end: Int
        if parts[1].isEmpty {
            end = length - 1
        } else if let given = Int(parts[1]), given >= start {
            end = given
        } else {
            throw ExampleError.usage(reason: "bad range \(text): END must be a number not less than START")
        }
        guard start < length, end < length else {
            throw ExampleError.usage(
                reason: "range \(text) is outside the resource of \(length) bytes (0-\(length - 1))"
            )
        }
        return start..<(end + 1)
    }
}
