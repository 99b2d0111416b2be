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
    public let layers: [LottieLayer]
    /// The assets (images and precompositions), in document order.
    public let assets: [LottieAsset]
    /// The markers, in document order.
    public let markers: [LottieMarker]
    /// How many fonts `fonts.list` declares (0 when absent).
    public let fontCount: Int
    /// How many glyphs `chars` declares (0 when absent).
    public let characterCount: Int
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
    public var precompositions: [LottiePrecomposition] {
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
