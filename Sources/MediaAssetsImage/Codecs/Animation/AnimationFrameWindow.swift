/// How far `AnimationFrames` decodes ahead of the frame shown: at most `frameCount` frames and `byteCount`
/// bytes of them wait decoded, whichever bound comes first (always at least one frame).
///
/// The window is what an animation costs while it plays, beside one canvas at the file's size (and, for
/// animated WebP, libwebpdemux's two): a 200-frame 1000×1000 GIF shown at 200 px holds a 4 MB canvas and a
/// few 160 KB frames, not 800 MB of frames. A larger window absorbs longer stalls of the decoding task; a
/// smaller one costs less.
public struct AnimationFrameWindow: Sendable, Hashable {
    /// The most frames decoded ahead (at least 1). Default: 8.
    public var frameCount: Int
    /// The most bytes of frames decoded ahead (`Image.cost`); one frame is decoded ahead even when it alone is
    /// larger. Default: 4 MiB.
    public var byteCount: Int

    /// Creates a window of at most `frameCount` frames and `byteCount` bytes.
    public init(frameCount: Int = 8, byteCount: Int = 4 << 20) {
        self.frameCount = max(1, frameCount)
        self.byteCount = max(0, byteCount)
    }
}
