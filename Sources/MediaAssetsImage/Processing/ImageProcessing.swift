import MediaAssets

/// A plugin that transforms an image; its identifier is part of the cache key of what it produces.
///
/// Implementation requirements:
/// - `identifier` is stable across runs, processes and machines, and differs whenever the output
///   would differ: it is appended to a cache key (`<key>@<identifier>`), so two processors with the
///   same identifier must produce the same pixels. Use printable ASCII without spaces or newlines.
/// - `process(_:)` is a pure function of its input and throws (never traps) on bad parameters or
///   input, so it is safe to call concurrently from any task.
///
/// Every image processor is an `AssetProcessing` of `Image`, so `ImageUtil` and any `AssetPipeline` over
/// images accept it, a user's own included.
public protocol ImageProcessing: AssetProcessing where Value == Image {
    /// A stable, parameter-bearing name, for example `resize(96x96,fill)`.
    var identifier: String { get }

    /// The size the processor's output needs from the original: the original is decoded toward it (at
    /// least this size in both dimensions, times `ImageDecodingOptions.downsamplingHeadroom`, in every
    /// still format). `nil`, the default, decodes the full image.
    var targetSize: PixelSize? { get }

    /// The part of its input the output depends on, or `nil` (the default) for all of it.
    ///
    /// When set, the original is decoded as just that part (`ImageDecodingOptions.regionOfInterest`: JPEG
    /// then skips the rest's inverse DCT and colour conversion, WebP crops in libwebp, PNG and HEIF reduce only
    /// its rows and columns), and `targetSize` is what that part needs.
    /// `process(_:)` must give the same result, up to resampling at the edges, whether it is handed the whole
    /// image or only the region: an aspect-fill crop names `.centered(aspectRatio:)`, and the centred crop of a
    /// centred crop is the same pixels.
    var regionOfInterest: ImageRegion? { get }

    /// Returns the processed image, or throws an `ImageProcessingError` (or the plugin's own error).
    func process(_ image: Image) throws -> Image

    /// Throws the error `process(_:)` would throw for the processor's own parameters (a size, radius or
    /// border it cannot draw), whatever the image. `ImageUtil` calls it before anything is fetched, so a bad
    /// style costs no download. The default checks nothing.
    func validate() throws

    /// Whether the processor returns its input unchanged, so that its result is the original itself, kept
    /// under the original's key rather than as a variant (`AvatarStyle.original`). The default is `false`.
    var isOriginal: Bool { get }
}

extension ImageProcessing {
    /// The full image: a processor that does not say what it needs gets everything.
    public var targetSize: PixelSize? { nil }

    /// Nothing to check.
    public func validate() throws {}

    /// All of the image.
    public var regionOfInterest: ImageRegion? { nil }

    /// A processor's result is a variant.
    public var isOriginal: Bool { false }
}

/// The processors a style is made of, one type per file. `Resize` and `CenterCrop` are public, written where
/// a style is expected (`.resize(size: .square(256), contentMode: .aspectFit)`); the shapes and borders are
/// what `AvatarStyle`'s styles run, named through them.
///
/// Identifiers have the form `name(parameters)`: sizes as `<width>x<height>`, lengths as
/// the shortest decimal that round-trips (`12`, `1.5`), colours as straight `#rrggbbaa`
/// hex. A composition joins its parts' identifiers with `>` in the order they run.
public enum ImageProcessors {
    /// The largest width, height, radius or border width a processor accepts; larger values throw.
    package static let maximumDimension = 16_384
}

extension ImageProcessing {
    /// A composition that runs this processor, then `next`.
    ///
    /// `ImageProcessors.Resize(size: .square(96), contentMode: .aspectFill).then(.circle())`
    package func then(_ next: some ImageProcessing) -> ImageProcessors.Composition {
        ImageProcessors.Composition([self, next])
    }
}
