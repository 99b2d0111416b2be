/// What an animation's headers say, read without decoding a frame: its format, canvas, frame count and loop
/// count.
///
/// GIF's are read by walking its blocks to the trailer (extensions and image descriptors; the compressed pixels
/// are skipped, never decompressed), animated WebP's from libwebpdemux's container parse. Decoders check their
/// limits against these before decoding any frame, and `image-example` prints its summary from them.
/// A still image, and the formats that read no animation headers (JPEG, PNG, HEIF, decoders you register), is
/// one frame.
public struct AnimationInfo: Sendable, Hashable {
    /// The encoded format.
    public var format: ImageFormat
    /// The size every frame is composited on (the upright size of a still image).
    public var canvas: PixelSize
    /// How many frames the file holds (at least 1).
    public var frameCount: Int
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int

    /// Creates animation facts.
    package init(format: ImageFormat, canvas: PixelSize, frameCount: Int, loopCount: Int) {
        self.format = format
        self.canvas = canvas
        self.frameCount = frameCount
        self.loopCount = loopCount
    }

    /// Whether there is more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// Refuses a canvas over `options.maxPixelCount` before anything of its size is allocated.
    func checkCanvas(within options: ImageDecodingOptions) throws {
        try ImageDecoder.checkPixelLimit(
            of: ImageHeader(
                format: format, width: canvas.width, height: canvas.height, orientation: .identity, hasAlpha: true
            ),
            options: options
        )
    }
}
