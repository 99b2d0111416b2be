import Foundation

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
