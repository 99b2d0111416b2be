import MediaAssetsImage

/// Reads an avatar style from the command line.
public enum AvatarStyleArgument {
    /// The accepted forms, for usage texts.
    public static let forms = "original | square:N | rounded:N:RADIUS[:BORDER] | circle:N[:BORDER]"

    /// `original`, `square:N`, `rounded:N:RADIUS[:BORDER]` or `circle:N[:BORDER]` (white border).
    ///
    /// - Throws: `ExampleError.usage` for another form or a number that is not one, and the
    ///   style's own `ImageProcessingError` for a size or radius out of range.
    public static func parse(_ text: String) throws -> AvatarStyle {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func number(_ index: Int) throws -> Double {
            guard index < parts.count, let value = Double(parts[index]), value.isFinite else {
                throw ExampleError.usage(reason: "bad style \(text): expected \(forms)")
            }
            return value
        }
        func size(_ index: Int) throws -> Int {
            let value = try number(index)
            guard value == value.rounded(), abs(value) <= 1_000_000 else {
                throw ExampleError.usage(reason: "bad style \(text): sizes are whole pixels")
            }
            return Int(value)
        }
        let style: AvatarStyle
        switch (parts[0].lowercased(), parts.count) {
        case ("original", 1):
            style = .original
        case ("square", 2):
            style = .rectangle(size: .square(try size(1)))
        case ("rounded", 3), ("rounded", 4):
            style = .roundedRectangle(
                size: .square(try size(1)), cornerRadius: try number(2),
                borderWidth: parts.count == 4 ? try number(3) : 0, borderColor: .white
            )
        case ("circle", 2), ("circle", 3):
            style = .circle(
                diameter: try size(1), borderWidth: parts.count == 3 ? try number(2) : 0, borderColor: .white
            )
        default:
            throw ExampleError.usage(reason: "bad style \(text): expected \(forms)")
        }
        try style.validate()
        return style
    }
}
