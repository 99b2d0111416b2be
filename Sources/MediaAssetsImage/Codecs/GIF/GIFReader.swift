import Foundation

/// Reads GIFs through `GIFFile`: the header scan, a whole decode, the first frame alone.
///
/// Every path scans the file first: its blocks are walked to the trailer without decompressing any pixels,
/// which counts the frames and finds a cut download before a frame is decoded, so limits are checked against
/// the true frame count and canvas, not discovered frame by frame.
struct GIFReader {
    let library: GIFLibrary

    /// The logical screen size, from the first 13 bytes.
    func canvasSize(_ data: Data) throws -> PixelSize {
        try GIFFile(data, library: library).canvasSize
    }

    /// Canvas, frame count and loop count from a walk of every block to the trailer; no pixel is decompressed.
    ///
    /// - Throws: `ImageError.truncated` when the file ends before its trailer, `.corrupt` for a file with no
    ///   frames or a record giflib rejects.
    func animationInfo(_ data: Data) throws -> AnimationInfo {
        let file = try GIFFile(data, library: library)
        var frameCount = 0
        var loopCount = 1
        var control = GIFFrameControl()
        while try file.nextFrame(control: &control, loopCount: &loopCount) != nil {
            try file.skipImageData()
            frameCount += 1
        }
        guard frameCount > 0 else { throw ImageError.corrupt(format: .gif, reason: "the file has no frames") }
        return AnimationInfo(format: .gif, canvas: file.canvasSize, frameCount: frameCount, loopCount: loopCount)
    }

    /// The first frame composited on the canvas, reduced toward `options.targetSize` (of the region of interest
    /// when one is set); the whole file is scanned first, so a cut download is refused.
    func firstFrame(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let info = try animationInfo(data)
        let source = try GIFFrameSource(data, info: info, library: library, options: options)
        guard let (canvas, _) = try source.nextFrame() else {
            throw ImageError.corrupt(format: .gif, reason: "the file has no frames")
        }
        let size = AnimationFrameScaling.frameSize(
            canvas: info.canvas, target: options.targetSize, region: options.regionOfInterest
        )
        return AnimationFrameScaling.scaled(canvas, to: size)
    }

    /// Every frame, composited and reduced toward `options.targetSize` as it is made, after the frame count and
    /// the pixels of all frames (at the size they are kept) are checked against the limits.
    func animation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        let info = try animationInfo(data)
        return try AnimatedImage(
            decoding: GIFFrameSource(data, info: info, library: library, options: options), options)
    }
}
