import Foundation

/// Decodes GIF, still or animated, through giflib's record-by-record reader (loaded at run time; a missing
/// library throws `ImageError.libraryMissing` naming libgif7).
///
/// Frames are composited as browsers do: the canvas starts transparent (the background colour is ignored),
/// disposal methods 2 (restore to transparent) and 3 (restore the previous canvas) are applied, transparent
/// indices leave the canvas as it was, local colour tables override the global one, a frame with neither is
/// drawn with a grey ramp (index n is grey n), frames are clipped to the canvas, and delays
/// under 20 ms are shown for 100 ms. The NETSCAPE2.0 loop count n becomes n + 1 plays (0 stays "forever");
/// without it the animation plays once.
///
/// The file's blocks are walked to its trailer (`;`) before any frame is decoded, without decompressing
/// pixels: that counts the frames for the limits and refuses a cut download (`.truncated`), also in
/// `decode(_:options:)`, which then composites only the first frame. With `options.targetSize`, frames are
/// composited on the full canvas and each is reduced to the display size as it is made.
package struct GIFDecoder: ImageDecoding {
    private let library: Result<GIFLibrary, ImageError>

    /// Creates the decoder over the installed libgif.so.7.
    package init() {
        self.init(library: GIFLibrary.system)
    }

    /// A decoder over a given load (tests pass a bogus soname to simulate a missing library).
    package init(library: Result<GIFLibrary, ImageError>) {
        self.library = library
    }

    /// "gif".
    package var identifier: String { ImageFormat.gif.rawValue }

    /// Whether `data` starts with `GIF87a` or `GIF89a`.
    package func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .gif }

    /// The logical screen (canvas) size; GIF may always be transparent.
    package func header(of data: Data) throws -> ImageHeader {
        let canvas = try GIFReader(library: library.get()).canvasSize(data)
        return ImageHeader(
            format: .gif, width: canvas.width, height: canvas.height, orientation: .identity, hasAlpha: true
        )
    }

    /// The first frame, composited on the canvas and reduced toward `options.targetSize`.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try GIFReader(library: library.get()).firstFrame(data, options: options)
    }

    /// Every frame, composited and reduced toward `options.targetSize`, with its delay and the loop count;
    /// refused before any frame is decoded when the frame count or the pixels of all frames are over the limits.
    package func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        try GIFReader(library: library.get()).animation(data, options: options)
    }
}

extension GIFDecoder: AnimationFrameSourceMaking {
    func animationInfo(of data: Data) throws -> AnimationInfo {
        try GIFReader(library: library.get()).animationInfo(data)
    }

    func makeFrameSource(
        _ data: Data, info: AnimationInfo, options: ImageDecodingOptions
    ) throws -> any AnimationFrameSource {
        try GIFFrameSource(data, info: info, library: library.get(), options: options)
    }
}
