import Foundation

extension DotLottieJSONValue {
    /// Parses a whole JSON document with the Lottie parser's byte reader and limits: input size, nesting
    /// depth, and at most `maximumAssetCount` values in all.
    ///
    /// - Throws: `LottieError` with the byte offset of bad syntax or the limit exceeded.
    static func parse(_ data: Data, options: LottieParsingOptions) throws -> DotLottieJSONValue {
        try JSONByteReader.reading(data, options: options) { reader in
            var budget = ValueBudget(remaining: options.maximumAssetCount, limit: options.maximumAssetCount)
            let value = try read(&reader, depth: 1, budget: &budget)
            try reader.expectEnd()
            return value
        }
    }

    /// Reads one value; containers recurse at most `maximumNestingDepth` deep.
    private static func read(_ reader: inout JSONByteReader, depth: Int, budget: inout ValueBudget) throws -> Self {
        guard budget.remaining > 0 else { throw LottieError.tooManyElements(path: "$", limit: budget.limit) }
        budget.remaining -= 1
        let byte = try reader.peekValueStart()
        switch byte {
        case UInt8(ascii: "{"):
            var members: [String: DotLottieJSONValue] = [:]
            if try reader.beginObject(depth: depth) { return .object(members) }
            repeat {
                let key = try reader.readKeyText()
                members[key] = try read(&reader, depth: depth + 1, budget: &budget)
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [DotLottieJSONValue] = []
            if try reader.beginArray(depth: depth) { return .array(elements) }
            repeat {
                elements.append(try read(&reader, depth: depth + 1, budget: &budget))
            } while try reader.continueContainer(closer: UInt8(ascii: "]"))
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try reader.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            try reader.skipLiteral()
            return byte == UInt8(ascii: "n") ? .null : .bool(byte == UInt8(ascii: "t"))
        default:
            return .number(try reader.readNumber())
        }
    }
}

/// How many more values a document may hold.
private struct ValueBudget {
    var remaining: Int
    let limit: Int
}
