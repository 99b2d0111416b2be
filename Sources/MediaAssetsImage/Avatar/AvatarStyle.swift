/// How an avatar is styled: the avatar styles, each made of `ImageProcessing` values, with an identifier
/// that keys the styled variant in the cache (`<key>@<identifier>`).
///
/// Every sized style scales to fill its size and cuts the centre (enlarging small sources, so the
/// result is always exactly the size), then masks the shape and strokes the border in one pass:
/// `.circle(diameter: 96, borderWidth: 2)` is `.aspectFillCrop(size: .square(96))` followed by
/// `.circle(stroke:)`. Build a style of your own from any processors with
/// `init(identifier:targetSize:processors:)`, or pass any `ImageProcessing` to `ImageUtil` directly.
///
/// Identifiers: `original`, `rectangle(96x96)`, `rounded(96x96,r=12)`, `circle(96)`,
/// `freeform(<escaped name>)`; a border adds `,border=<width>,#rrggbbaa`, for example
/// `circle(96,border=2,#ffffffff)`. The border colour is left out when there is no border, so
/// such styles compare (and cache) equal whatever their colour. Styles are equal when their identifiers,
/// target sizes and processors' identifiers are; only `.original` is the unprocessed image, whatever
/// identifier a style of your own has.
public struct AvatarStyle: ImageProcessing, Hashable {
    /// The style's part of the cache key; see the type's documentation for the format.
    public let identifier: String
    /// The size the style produces, which the original is decoded toward; `nil` for the full size.
    public let targetSize: PixelSize?
    /// The processors the style runs, in order.
    package let processors: ImageProcessors.Composition
    /// Whether this is `.original`, the image as decoded, kept under the original's own key. A style of your
    /// own never is, even one named `original`: its result is a variant, keyed `<key>@<identifier>`.
    public let isOriginal: Bool
    /// The part of the original the first processor keeps (sized styles: the centred part with the size's
    /// aspect ratio), so only that part is decoded.
    public var regionOfInterest: ImageRegion? { processors.regionOfInterest }
    private let validation: @Sendable () throws -> Void

    /// Creates a style of your own: `processors` run in order, `identifier` keys the result, and the
    /// original is decoded toward `targetSize` (at least that size in both dimensions).
    public init(identifier: String, targetSize: PixelSize?, processors: [any ImageProcessing]) {
        self.init(identifier: identifier, targetSize: targetSize, processors: processors, validation: {})
    }

    fileprivate init(
        identifier: String, targetSize: PixelSize?, processors: [any ImageProcessing], isOriginal: Bool = false,
        validation: @escaping @Sendable () throws -> Void
    ) {
        self.isOriginal = isOriginal
        self.identifier = identifier
        self.targetSize = targetSize
        self.processors = ImageProcessors.Composition(processors)
        self.validation = validation
    }

    /// Throws `ImageProcessingError` for a size, radius or border the style cannot draw: the style's own check
    /// (naming the style), then its processors'.
    public func validate() throws {
        try validation()
        try processors.validate()
    }

    /// Runs the style's processors; throws for invalid parameters or a failing freeform transform.
    public func process(_ image: Image) throws -> Image {
        try validate()
        return try processors.process(image)
    }

    /// Equal when the identifiers, target sizes and processors are, and both are `.original` or neither is.
    public static func == (lhs: AvatarStyle, rhs: AvatarStyle) -> Bool {
        lhs.identifier == rhs.identifier && lhs.targetSize == rhs.targetSize && lhs.isOriginal == rhs.isOriginal
            && lhs.processors == rhs.processors
    }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    fileprivate static func borderSuffix(_ width: Double, _ color: RGBA) -> String {
        // Kept for invalid (negative, NaN) widths so the error names what the caller wrote.
        guard width != 0 else { return "" }
        return ",border=\(ImageProcessors.format(width)),\(ImageProcessors.hex(color))"
    }
}

/// The avatar styles, written where a style is expected: `image(for: url, style: .circle(diameter: 96))`, or
/// `AvatarStyle.circle(diameter: 96)`.
extension ImageProcessing where Self == AvatarStyle {
    /// The image as decoded, unprocessed.
    public static var original: AvatarStyle {
        AvatarStyle(
            identifier: "original", targetSize: nil, processors: [], isOriginal: true, validation: {})
    }

    /// Scaled to fill `size`, centre cut to exactly `size`.
    public static func rectangle(size: PixelSize) -> AvatarStyle {
        let identifier = "rectangle(\(size))"
        return AvatarStyle(
            identifier: identifier, targetSize: size, processors: [ImageProcessors.Resize.exactFill(size)]
        ) {
            try ImageProcessors.validate(size, processor: identifier)
        }
    }

    /// A rectangle with transparent anti-aliased corners and an optional border inside the edge.
    public static func roundedRectangle(
        size: PixelSize, cornerRadius: Double, borderWidth: Double = 0, borderColor: RGBA = .white
    ) -> AvatarStyle {
        let radius = ImageProcessors.format(cornerRadius)
        let identifier = "rounded(\(size),r=\(radius)\(AvatarStyle.borderSuffix(borderWidth, borderColor)))"
        let stroke = ImageProcessors.Stroke(width: borderWidth, color: borderColor)
        let processors: [any ImageProcessing] = [
            ImageProcessors.Resize.exactFill(size),
            ImageProcessors.RoundedRectangle(cornerRadius: cornerRadius, stroke: stroke),
        ]
        return AvatarStyle(identifier: identifier, targetSize: size, processors: processors) {
            try ImageProcessors.validate(size, processor: identifier)
            try ImageProcessors.validate(cornerRadius: cornerRadius, processor: identifier)
            try ImageProcessors.validate(borderWidth: borderWidth, processor: identifier)
        }
    }

    /// A `diameter × diameter` disc with an optional border inside the edge.
    public static func circle(diameter: Int, borderWidth: Double = 0, borderColor: RGBA = .white) -> AvatarStyle {
        let identifier = "circle(\(diameter)\(AvatarStyle.borderSuffix(borderWidth, borderColor)))"
        let size = PixelSize.square(diameter)
        let processors: [any ImageProcessing] = [
            ImageProcessors.Resize.exactFill(size),
            ImageProcessors.Circle(stroke: ImageProcessors.Stroke(width: borderWidth, color: borderColor)),
        ]
        return AvatarStyle(identifier: identifier, targetSize: size, processors: processors) {
            try ImageProcessors.validate(size, processor: identifier)
            try ImageProcessors.validate(borderWidth: borderWidth, processor: identifier)
        }
    }

    /// A named transform of the user's; the name is its cache identity.
    public static func freeform(name: String, transform: @escaping @Sendable (Image) throws -> Image) -> AvatarStyle {
        let freeform = ImageProcessors.Freeform(name: name, transform: transform)
        return AvatarStyle(identifier: freeform.identifier, targetSize: nil, processors: [freeform])
    }
}
