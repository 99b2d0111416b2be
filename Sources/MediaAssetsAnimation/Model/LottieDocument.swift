import Foundation

/// A parsed Lottie animation: the facts a player and an app need, plus the raw bytes for a renderer.
///
/// A document rather than something a player draws: hand `data` to a renderer to play it.
///
/// Create one with `LottieDocument.parse(_:options:)`, which also validates it. The model keeps
/// the animation's timing, size, layer list, assets and markers; drawing content (shapes,
/// keyframes) is skipped and stays in `data`.
public struct LottieDocument: Sendable, Hashable {
    /// The declared format version (`v` string or `ver` integer; `v` wins when both are present).
    public let version: LottieVersion?
    /// Frames per second (`fr`), always greater than zero.
    public let frameRate: Double
    /// The first frame (`ip`).
    public let inPoint: Double
    /// The frame after the last one (`op`), always greater than `inPoint`.
    public let outPoint: Double
    /// The composition width (`w`).
    public let width: Double
    /// The composition height (`h`).
    public let height: Double
    /// Whether the animation declares 3D layers (`ddd` is 1).
    public let is3D: Bool
    /// The animation's name (`nm`), if any.
    public let name: String?
    /// The top-level layers, in document order (first is frontmost).
    package let layers: [LottieLayer]
    /// The assets (images and precompositions), in document order.
    package let assets: [LottieAsset]
    /// The markers, in document order.
    public let markers: [LottieMarker]
    /// How many fonts `fonts.list` declares (0 when absent).
    package let fontCount: Int
    /// How many glyphs `chars` declares (0 when absent).
    package let characterCount: Int
    /// The slot identifiers the animation declares in `slots`: the properties a dotLottie theme can set.
    public let slotIDs: [String]
    /// The JSON the model was parsed from, for a renderer.
    public let data: Data

    /// Creates an animation from parts already validated; `parse(_:options:)` is the usual way.
    init(
        version: LottieVersion?, frameRate: Double, inPoint: Double, outPoint: Double,
        width: Double, height: Double, is3D: Bool, name: String?, layers: [LottieLayer],
        assets: [LottieAsset], markers: [LottieMarker], fontCount: Int, characterCount: Int,
        slotIDs: [String] = [], data: Data
    ) {
        self.version = version
        self.frameRate = frameRate
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.width = width
        self.height = height
        self.is3D = is3D
        self.name = name
        self.layers = layers
        self.assets = assets
        self.markers = markers
        self.fontCount = fontCount
        self.characterCount = characterCount
        self.slotIDs = slotIDs
        self.data = data
    }

    /// How many top-level layers the animation has (a measure of the work a renderer does per frame).
    public var layerCount: Int { layers.count }

    /// The playing time in seconds: `(outPoint - inPoint) / frameRate`.
    public var duration: Double {
        (outPoint - inPoint) / frameRate
    }

    /// The number of frames played: `outPoint - inPoint`, rounded up.
    public var frameCount: Int {
        Int((outPoint - inPoint).rounded(.up))
    }

    /// The image assets, in document order.
    public var imageAssets: [LottieImageAsset] {
        assets.compactMap { if case let .image(image) = $0 { image } else { nil } }
    }

    /// The precomposition assets, in document order.
    package var precompositions: [LottiePrecomposition] {
        assets.compactMap { if case let .precomposition(precomposition) = $0 { precomposition } else { nil } }
    }

    /// Whether the animation uses fonts or glyphs (text layers need them).
    public var hasFonts: Bool {
        fontCount > 0 || characterCount > 0
    }

    /// The URLs of the external images, each `u` + `p` resolved against `baseURL` (the animation's URL).
    ///
    /// Embedded images are skipped; an absolute `p` or `u` wins over `baseURL`, as in a browser.
    /// Duplicates are listed once, in document order.
    public func externalImageURLs(relativeTo baseURL: URL) -> [URL] {
        var seen = Set<URL>()
        var urls: [URL] = []
        for image in imageAssets where !image.isEmbedded {
            guard let url = externalImageURL(of: image, relativeTo: baseURL), seen.insert(url).inserted else {
                continue
            }
            urls.append(url)
        }
        return urls
    }

    /// The absolute URL of an external image asset (`u` + `p` resolved against `baseURL`), or nil for an
    /// embedded image or a reference that makes no URL.
    package func externalImageURL(of image: LottieImageAsset, relativeTo baseURL: URL) -> URL? {
        guard !image.isEmbedded else { return nil }
        let reference = (image.directory ?? "") + image.path
        let url =
            URL(string: reference, relativeTo: baseURL)
            ?? reference.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
            .flatMap { URL(string: $0, relativeTo: baseURL) }
        return url?.absoluteURL
    }
}

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
}

extension LottieDocument {
    /// Returns the animation with the image assets `image` answers for embedded as base64 data URLs
    /// (`p` replaced, `u` emptied, `e` set to 1); precompositions and unanswered assets are left as they are.
    ///
    /// The JSON is edited in place (other bytes are kept) and parsed again with `options`.
    ///
    /// - Complexity: O(n) in the JSON length plus the size of the embedded images.
    func embeddingImages(
        options: LottieParsingOptions, _ image: (ImageAssetLocation) throws -> (mediaType: String, data: Data)?
    ) throws -> LottieDocument {
        let bytes = [UInt8](data)
        let locations = try ImageAssetScanner.locate(in: bytes, maximumDepth: options.maximumNestingDepth)
        var edits: [(range: Range<Int>, replacement: String)] = []
        for location in locations where !location.hasLayers {
            guard let pathRange = location.pathRange, let (mediaType, imageData) = try image(location) else { continue }
            edits.append((pathRange, "\"data:\(mediaType);base64,\(imageData.base64EncodedString())\""))
            if let directoryRange = location.directoryRange { edits.append((directoryRange, "\"\"")) }
            if let embeddedRange = location.embeddedRange {
                edits.append((embeddedRange, "1"))
            } else {
                edits.append((location.bodyStart..<location.bodyStart, "\"e\":1,"))
            }
        }
        guard !edits.isEmpty else { return self }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        var edited: [UInt8] = []
        edited.reserveCapacity(bytes.count + edits.reduce(0) { $0 + $1.replacement.utf8.count })
        var copied = 0
        for edit in edits {
            edited.append(contentsOf: bytes[copied..<edit.range.lowerBound])
            edited.append(contentsOf: edit.replacement.utf8)
            copied = edit.range.upperBound
        }
        edited.append(contentsOf: bytes[copied...])
        return try LottieDocument.parse(Data(edited), options: options)
    }
}
