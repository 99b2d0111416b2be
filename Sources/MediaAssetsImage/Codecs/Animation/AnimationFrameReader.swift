import Foundation

/// Decodes an animation's frames one at a time, in order or by index, each reduced to a display size as it is
/// composited: the synchronous reader under `AnimationFrames`, for tools and for callers that run it on a
/// thread of their own.
///
/// Only one canvas is held at full size (GIF's and WebP's compositing needs it) plus the frame being made; a
/// frame handed out is the caller's. The headers are read when the reader is made, so an oversized canvas
/// or a cut file is refused before any frame is decoded. Decoding is CPU work of about one canvas per frame:
/// keep it off Swift's cooperative pool, or use `AnimationFrames`, which runs one frame per hop.
///
/// ```swift
/// let reader = try AnimationFrameReader(data: gif, options: ImageDecodingOptions(targetSize: .square(200)))
/// while let frame = try reader.nextFrame() { show(frame.image, for: frame.duration) }
/// ```
///
/// Not thread-safe: one caller at a time.
package final class AnimationFrameReader {
    /// The headers' facts: canvas, frame count, loop count.
    package let info: AnimationInfo
    /// The size of every frame handed out: the canvas scaled down to the smallest size covering
    /// `options.targetSize` (the canvas itself without a target); a still image decoded by a decoder you
    /// registered may differ.
    package let frameSize: PixelSize
    /// The index of the frame `nextFrame()` returns next (0 after `rewind()`).
    package private(set) var nextIndex = 0

    /// How many times its short side a canvas's long side may be when its frames are reduced toward a target
    /// size: 1000. A frame covering the target keeps the canvas's aspect ratio, so a longer strip would make
    /// every frame a resample of far more pixels than the target holds (a 9×458759 canvas shown at 7×5 makes
    /// 7×356813 frames, 71,000 times the target). Such a canvas is refused (`ImageError.unsupported`) from its
    /// headers, before any frame is decoded, by this reader and by `AnimationFrames`; decoded without a target
    /// (frames at the canvas's size), it is not reduced and plays.
    package static let maxAspectRatio = 1000

    private let source: any AnimationFrameSource

    /// A reader of `data`'s frames, decoded with `codecs` within `options`' limits, reduced toward
    /// `options.targetSize`. Frames are always whole: a region of interest only makes them large enough for
    /// that region to cover the target (a style then cuts it out).
    ///
    /// - Throws: `ImageError` for unknown, corrupt or cut input, a canvas over `options.maxPixelCount`, or
    ///   (`.unsupported`) a canvas over `maxAspectRatio` whose frames would be reduced.
    package convenience init(
        data: Data, options: ImageDecodingOptions = .init(), codecs: ImageCodecRegistry = .standard
    ) throws {
        try self.init(data: data, info: codecs.animationInfo(of: data), options: options, codecs: codecs)
    }

    /// A reader of `data`, whose headers said `info` (read once by the caller).
    init(data: Data, info: AnimationInfo, options: ImageDecodingOptions, codecs: ImageCodecRegistry) throws {
        var frameOptions = options
        frameOptions.regionOfInterest = nil
        self.info = info
        self.frameSize = AnimationFrameScaling.frameSize(
            canvas: info.canvas, target: options.targetSize, region: options.regionOfInterest
        )
        try AnimationFrameScaling.checkReduction(of: info, to: frameSize)
        self.source = try codecs.makeFrameSource(data, info: info, options: frameOptions)
    }

    /// The next frame in display order, or `nil` after the last one of a pass (call `rewind()` to loop).
    ///
    /// - Throws: `ImageError` when the frame's data is corrupt.
    package func nextFrame() throws -> AnimatedImage.Frame? {
        guard let (canvas, duration) = try source.nextFrame() else {
            guard nextIndex == info.frameCount else {
                throw ImageError.corrupt(
                    format: info.format,
                    reason: "\(nextIndex) frames decoded where the headers declare \(info.frameCount)"
                )
            }
            return nil
        }
        nextIndex += 1
        return AnimatedImage.Frame(image: AnimationFrameScaling.scaled(canvas, to: frameSize), duration: duration)
    }

    /// The frame at `index`: decoded forward from the next one, or from the first after a rewind when `index`
    /// is behind (every frame before it is composited, not kept).
    ///
    /// - Precondition: `index` is in `0..<info.frameCount`.
    /// - Throws: `ImageError` when a frame's data is corrupt.
    package func frame(at index: Int) throws -> AnimatedImage.Frame {
        precondition((0..<info.frameCount).contains(index), "frame \(index) of \(info.frameCount)")
        if index < nextIndex { try rewind() }
        while nextIndex < index {
            guard try source.nextFrame() != nil else { break }
            nextIndex += 1
        }
        guard let frame = try nextFrame() else {
            throw ImageError.corrupt(format: info.format, reason: "frame \(index + 1) of \(info.frameCount) is missing")
        }
        return frame
    }

    /// Starts again at the first frame.
    package func rewind() throws {
        try source.rewind()
        nextIndex = 0
    }
}

@available(*, unavailable, message: "a reader decodes on one thread at a time; AnimationFrames is Sendable")
extension AnimationFrameReader: Sendable {}
