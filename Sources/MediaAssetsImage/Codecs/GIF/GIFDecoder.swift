import Foundation

/// Decodes GIF, still or animated, through giflib's record-by-record reader (loaded at run time; a missing
/// library throws `ImageError.libraryMissing` naming libgif7).
///
/// Frames are composited as browsers do: the canvas starts transparent (the background colour is ignored),
/// disposal methods 2 (restore to transparent) and 3 (restore the previous canvas) are applied, transparent
/// indices leave the canvas as it was, local colour tables override the global one, frames are clipped to the
/// canvas, and delays under 20 ms are shown for 100 ms. The NETSCAPE2.0 loop count n becomes n + 1 plays
/// (0 stays "forever"); without it the animation plays once.
///
/// A file must reach its trailer (`;`): a cut download throws `.truncated`, also from `decode(_:options:)`,
/// which composites only the first frame and skips the others' compressed data without decoding it.
public struct GIFDecoder: ImageDecoding {
    private let library: Result<GIFLibrary, ImageError>

    /// Creates the decoder over the installed libgif.so.7.
    public init() {
        self.init(library: GIFLibrary.system)
    }

    /// A decoder over a given load (tests pass a bogus soname to simulate a missing library).
    package init(library: Result<GIFLibrary, ImageError>) {
        self.library = library
    }

    /// "gif".
    public var identifier: String { ImageFormat.gif.rawValue }

    /// Whether `data` starts with `GIF87a` or `GIF89a`.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .gif }

    /// The logical screen (canvas) size; GIF may always be transparent.
    public func header(of data: Data) throws -> ImageHeader {
        let canvas = try GIFReader(library: library.get()).canvasSize(data)
        return ImageHeader(
            format: .gif, width: canvas.width, height: canvas.height, orientation: .identity, hasAlpha: true
        )
    }

    /// The first frame, composited on the canvas.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try GIFReader(library: library.get()).read(data, options: options, frameLimit: 1).firstFrame
    }

    /// Every frame, composited, with its delay and the loop count.
    public func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        try GIFReader(library: library.get()).read(data, options: options, frameLimit: Int.max)
    }
}
