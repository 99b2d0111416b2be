import Foundation

extension LottieDocument {
    /// Parses and validates a Lottie JSON animation.
    ///
    /// One pass over the bytes builds only the model; shape data and keyframes are validated as
    /// JSON and skipped. Unknown keys are ignored. Limits (see `LottieParsingOptions`): input
    /// size (64 MiB by default, checked before reading), nesting depth (512), layer, asset and
    /// marker counts (100,000 each). Skipped strings are checked for valid escapes and control
    /// characters; kept strings are also checked for valid UTF-8.
    ///
    /// - Throws: `LottieError.malformedJSON` with the byte offset for bad syntax,
    ///   `nestingTooDeep`, `inputTooLarge` or `tooManyElements` for exceeded limits, and
    ///   `invalid(path:reason:)` naming the JSON path of a missing, mistyped or inconsistent value.
    /// - Complexity: O(n) in the input length.
    public static func parse(_ data: Data, options: LottieParsingOptions = .init()) throws -> LottieDocument {
        let parsed = try JSONByteReader.reading(data, options: options) { reader -> ParsedLottie in
            var parser = LottieModelParser(reader: reader, options: options)
            return try parser.parseDocument()
        }
        return try LottieValidator.makeAnimation(from: parsed, data: data)
    }

    /// Parses and validates a Lottie JSON animation; the same as `LottieDocument.parse(_:options:)`.
    public init(data: Data, options: LottieParsingOptions = .init()) throws {
        self = try Self.parse(data, options: options)
    }
}
