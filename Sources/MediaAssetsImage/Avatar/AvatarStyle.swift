/// How an avatar is styled: Navi's styles as an image processor whose identifier keys the styled
/// variant in the cache (`<key>@<identifier>`).
///
/// Every sized style scales to fill its size and cuts the centre (enlarging small sources, so the
/// result is always exactly the size), then masks the shape and strokes the border in one pass.
///
/// Identifiers: `original`, `rectangle(96x96)`, `rounded(96x96,r=12)`, `circle(96)`,
/// `freeform(<escaped name>)`; a border adds `,border=<width>,#rrggbbaa`, for example
/// `circle(96,border=2,#ffffffff)`. The border colour is left out when there is no border, so
/// such styles compare (and cache) equal whatever their colour. Equality and hashing go by identifier.
public enum AvatarStyle: ImageProcessing, Hashable {
    /// The image as decoded, unprocessed.
    case original
    /// Scaled to fill `size`, centre cut to exactly `size`.
    case rectangle(size: PixelSize)
    /// A rectangle with transparent anti-aliased corners and an optional border inside the edge.
    case roundedRectangle(size: PixelSize, cornerRadius: Double, borderWidth: Double = 0, borderColor: RGBA = .white)
    /// A `diameter × diameter` disc with an optional border inside the edge.
    case circle(diameter: Int, borderWidth: Double = 0, borderColor: RGBA = .white)
    /// A named transform of the user's; the name is its cache identity.
    case freeform(name: String, transform: @Sendable (Image) throws -> Image)

    /// The style's part of the cache key; see the type's documentation for the format.
    public var identifier: String {
        switch self {
        case .original:
            return "original"
        case .rectangle(let size):
            return "rectangle(\(size))"
        case let .roundedRectangle(size, cornerRadius, borderWidth, borderColor):
            let radius = ImageProcessors.format(cornerRadius)
            return "rounded(\(size),r=\(radius)\(Self.borderSuffix(borderWidth, borderColor)))"
        case let .circle(diameter, borderWidth, borderColor):
            return "circle(\(diameter)\(Self.borderSuffix(borderWidth, borderColor)))"
        case .freeform(let name, _):
            return "freeform(\(ImageProcessors.escape(name)))"
        }
    }

    /// The pixel size the style needs from the decoder; nil for `.original` and `.freeform`.
    ///
    /// A decoder may downsample (libjpeg's scaling) while the image still covers this size in
    /// the aspect-fill sense: both sides at least as long as the target's.
    public var targetSize: PixelSize? {
        switch self {
        case .original, .freeform: return nil
        case .rectangle(let size), .roundedRectangle(let size, _, _, _): return size
        case .circle(let diameter, _, _): return .square(diameter)
        }
    }

    /// Throws `ImageProcessingError` for a size outside `1...16384` or a bad radius or border width.
    public func validate() throws {
        switch self {
        case .original, .freeform:
            return
        case .rectangle(let size):
            try ImageProcessors.validate(size, processor: identifier)
        case let .roundedRectangle(size, cornerRadius, borderWidth, _):
            try ImageProcessors.validate(size, processor: identifier)
            try ImageProcessors.validate(cornerRadius: cornerRadius, processor: identifier)
            try ImageProcessors.validate(borderWidth: borderWidth, processor: identifier)
        case let .circle(diameter, borderWidth, _):
            try ImageProcessors.validate(.square(diameter), processor: identifier)
            try ImageProcessors.validate(borderWidth: borderWidth, processor: identifier)
        }
    }

    /// Returns the styled avatar; throws for invalid parameters, or the freeform transform's error.
    public func process(_ image: Image) throws -> Image {
        try validate()
        switch self {
        case .original:
            return image
        case .freeform(_, let transform):
            return try transform(image)
        case .rectangle(let size):
            return try ImageProcessors.Resize.exactFill(size).process(image)
        case let .roundedRectangle(size, cornerRadius, borderWidth, borderColor):
            let filled = try ImageProcessors.Resize.exactFill(size).process(image)
            let outline = ShapeOutline(
                width: Double(filled.width), height: Double(filled.height), cornerRadius: cornerRadius
            )
            return Self.render(filled, outline: outline, borderWidth: borderWidth, borderColor: borderColor)
        case let .circle(diameter, borderWidth, borderColor):
            let filled = try ImageProcessors.Resize.exactFill(.square(diameter)).process(image)
            let outline = ShapeOutline.circle(width: Double(filled.width), height: Double(filled.height))
            return Self.render(filled, outline: outline, borderWidth: borderWidth, borderColor: borderColor)
        }
    }

    /// Equal when the identifiers are equal (a freeform by its name).
    public static func == (lhs: AvatarStyle, rhs: AvatarStyle) -> Bool {
        lhs.identifier == rhs.identifier
    }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    private static func borderSuffix(_ width: Double, _ color: RGBA) -> String {
        // Kept for invalid (negative, NaN) widths so the error names what the caller wrote.
        guard width != 0 else { return "" }
        return ",border=\(ImageProcessors.format(width)),\(ImageProcessors.hex(color))"
    }

    private static func render(_ image: Image, outline: ShapeOutline, borderWidth: Double, borderColor: RGBA) -> Image {
        let stroke = borderWidth > 0 && borderColor.alpha > 0
            ? ShapeRenderer.Stroke(width: borderWidth, color: borderColor)
            : nil
        return ShapeRenderer.render(image, outline: outline, clips: true, stroke: stroke)
    }
}
