/// Builds a `ParsedLottie` from JSON bytes in one pass, reading only the values the model keeps.
///
/// Depth convention: a container opened by `beginObject(depth: d)` is at depth `d` (the root
/// object is 1), and values inside it are skipped with `skipValue(depth: d)`.
///
/// A value of the wrong type is recorded as the first issue and skipped, so that a syntax error
/// later in the document still wins (a malformed file is reported as malformed).
struct LottieModelParser {
    var reader: JSONByteReader
    let options: LottieParsingOptions
    /// The first type or content problem met, in document order.
    var firstIssue: LottieError?
    /// Layers seen across every layer list, checked against `maximumLayerCount`.
    var layerCount = 0

    init(reader: JSONByteReader, options: LottieParsingOptions) {
        self.reader = reader
        self.options = options
    }

    /// Reads the whole document and returns its parsed fields, or throws the first problem.
    mutating func parseDocument() throws -> ParsedLottie {
        let first = try reader.peekValueStart()
        guard first == UInt8(ascii: "{") else {
            try reader.skipValue(depth: 0)
            try reader.expectEnd()
            throw LottieError.invalid(path: "$", reason: "the root must be an object, found \(kindName(first))")
        }
        var root = ParsedLottie()
        let depth = 1
        if try !reader.beginObject(depth: depth) {
            repeat {
                let key = try reader.readKey()
                switch key {
                case LottieKeys.bodymovinVersion: root.bodymovinVersion = try readString(at: "$.v", depth: depth)
                case LottieKeys.specVersion: root.specificationVersion = try readInteger(at: "$.ver", depth: depth)
                case LottieKeys.frameRate: root.frameRate = try readNumber(at: "$.fr", depth: depth)
                case LottieKeys.inPoint: root.inPoint = try readNumber(at: "$.ip", depth: depth)
                case LottieKeys.outPoint: root.outPoint = try readNumber(at: "$.op", depth: depth)
                case LottieKeys.width: root.width = try readNumber(at: "$.w", depth: depth)
                case LottieKeys.height: root.height = try readNumber(at: "$.h", depth: depth)
                case LottieKeys.threeD: root.is3D = try readFlag(at: "$.ddd", depth: depth) ?? false
                case LottieKeys.name: root.name = try readString(at: "$.nm", depth: depth)
                case LottieKeys.layers: root.layers = try parseLayerList(at: "$.layers", depth: depth)
                case LottieKeys.assets: root.assets = try parseAssets(depth: depth)
                case LottieKeys.markers: root.markers = try parseMarkers(depth: depth)
                case LottieKeys.fonts: root.fontCount = try parseFonts(depth: depth)
                case LottieKeys.chars: root.characterCount = try countElements(at: "$.chars", depth: depth) ?? 0
                case LottieKeys.slots: root.slotIDs = try readObjectKeys(at: "$.slots", depth: depth) ?? []
                default: try reader.skipValue(depth: depth)
                }
            } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        }
        try reader.expectEnd()
        if let firstIssue { throw firstIssue }
        return root
    }

    // MARK: Typed values

    /// Records `reason` at `path` unless an earlier issue was recorded.
    mutating func recordIssue(_ path: String, _ reason: String) {
        if firstIssue == nil { firstIssue = .invalid(path: path, reason: reason) }
    }

    /// Records a type mismatch for the value ahead and skips it.
    mutating func rejectValue(at path: String, expected: String, depth: Int) throws {
        let byte = try reader.peekValueStart()
        recordIssue(path, "expected \(expected), found \(kindName(byte))")
        try reader.skipValue(depth: depth)
    }

    func kindName(_ byte: UInt8) -> String {
        JSONByteReader.kindName(of: byte)
    }

    /// Reads a number; anything else is recorded as an issue and gives nil.
    mutating func readNumber(at path: @autoclosure () -> String, depth: Int) throws -> Double? {
        let byte = try reader.peekValueStart()
        if byte == UInt8(ascii: "-") || JSONByteReader.isDigit(byte) { return try reader.readNumber() }
        try rejectValue(at: path(), expected: "a number", depth: depth)
        return nil
    }

    /// Reads an integral number; a fraction or another type is recorded as an issue and gives nil.
    mutating func readInteger(at path: @autoclosure () -> String, depth: Int) throws -> Int? {
        guard let number = try readNumber(at: path(), depth: depth) else { return nil }
        guard let integer = Int(exactly: number) else {
            recordIssue(path(), "expected an integer, found \(number)")
            return nil
        }
        return integer
    }

    /// Reads a string; `null` gives nil, anything else is recorded as an issue.
    mutating func readString(at path: @autoclosure () -> String, depth: Int) throws -> String? {
        let byte = try reader.peekValueStart()
        if byte == UInt8(ascii: "\"") { return try reader.readString() }
        if byte == UInt8(ascii: "n") {
            try reader.skipLiteral()
        } else {
            try rejectValue(at: path(), expected: "a string", depth: depth)
        }
        return nil
    }

    /// Reads a 0/1 number or a boolean as a flag; anything else is recorded as an issue.
    mutating func readFlag(at path: @autoclosure () -> String, depth: Int) throws -> Bool? {
        let byte = try reader.peekValueStart()
        switch byte {
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            try reader.skipLiteral()
            return byte == UInt8(ascii: "t")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try reader.readNumber() != 0
        default:
            try rejectValue(at: path(), expected: "0, 1 or a boolean", depth: depth)
            return nil
        }
    }

    /// Whether the value ahead is an object; if not, records an issue, skips it and returns false.
    mutating func expectObject(at path: @autoclosure () -> String, depth: Int) throws -> Bool {
        guard try reader.peekValueStart() == UInt8(ascii: "{") else {
            try rejectValue(at: path(), expected: "an object", depth: depth)
            return false
        }
        return true
    }

    /// Whether the value ahead is an array; if not, records an issue, skips it and returns false.
    mutating func expectArray(at path: @autoclosure () -> String, depth: Int) throws -> Bool {
        guard try reader.peekValueStart() == UInt8(ascii: "[") else {
            try rejectValue(at: path(), expected: "an array", depth: depth)
            return false
        }
        return true
    }

    /// Reads the keys of the object ahead, skipping their values (at most `maximumAssetCount` keys).
    mutating func readObjectKeys(at path: @autoclosure () -> String, depth: Int) throws -> [String]? {
        guard try expectObject(at: path(), depth: depth) else { return nil }
        var keys: [String] = []
        if try reader.beginObject(depth: depth + 1) { return keys }
        repeat {
            guard keys.count < options.maximumAssetCount else {
                throw LottieError.tooManyElements(path: path(), limit: options.maximumAssetCount)
            }
            keys.append(try reader.readKeyText())
            try reader.skipValue(depth: depth + 1)
        } while try reader.continueContainer(closer: UInt8(ascii: "}"))
        return keys
    }

    /// Counts the elements of the array ahead without building them.
    mutating func countElements(at path: @autoclosure () -> String, depth: Int) throws -> Int? {
        guard try expectArray(at: path(), depth: depth) else { return nil }
        var count = 0
        if try reader.beginArray(depth: depth + 1) { return 0 }
        repeat {
            try reader.skipValue(depth: depth + 1)
            count += 1
        } while try reader.continueContainer(closer: UInt8(ascii: "]"))
        return count
    }
}

/// What the parser read, before validation turns it into a `LottieDocument`.
///
/// Required values are optional here so that validation can name the missing key.
struct ParsedLottie {
    var bodymovinVersion: String?
    var specificationVersion: Int?
    var frameRate: Double?
    var inPoint: Double?
    var outPoint: Double?
    var width: Double?
    var height: Double?
    var is3D = false
    var name: String?
    var layers: [LottieLayer]?
    var assets: [LottieAsset] = []
    var markers: [LottieMarker] = []
    var fontCount = 0
    var characterCount = 0
    var slotIDs: [String] = []
}
