import Foundation
import Synchronization

/// Decodes one animation's frames in display order, one call at a time, each composited on the canvas.
///
/// What a frame window and a whole decode share: GIF and animated WebP composite on one canvas of their own,
/// still images are one frame. Not thread-safe: one task uses a source at a time.
protocol AnimationFrameSource: AnyObject {
    /// The headers' facts.
    var info: AnimationInfo { get }

    /// The next frame, composited, with how long it is shown; `nil` after the last. The image may share the
    /// source's canvas storage until the next call, so let go of it (or keep it, which copies) before then.
    ///
    /// - Throws: `ImageError` when the frame's data is corrupt.
    func nextFrame() throws -> (image: Image, duration: Duration)?

    /// Starts again at the first frame (the next loop of the animation).
    func rewind() throws
}

/// A decoder that reads animation headers and decodes frames one at a time (GIF, WebP); the registry plays
/// other formats as one still frame.
protocol AnimationFrameSourceMaking: ImageDecoding {
    /// The facts from the headers, without decoding a frame.
    func animationInfo(of data: Data) throws -> AnimationInfo

    /// A source over `data`, whose headers said `info`; checks the canvas against `options.maxPixelCount`
    /// before allocating it.
    func makeFrameSource(
        _ data: Data, info: AnimationInfo, options: ImageDecodingOptions
    ) throws -> any AnimationFrameSource
}

/// A still image as a one-frame source, decoded (toward `options.targetSize`) when first asked.
final class StillFrameSource: AnimationFrameSource {
    let info: AnimationInfo
    private let decode: () throws -> Image
    private var delivered = false

    init(info: AnimationInfo, decode: @escaping () throws -> Image) {
        self.info = info
        self.decode = decode
    }

    func nextFrame() throws -> (image: Image, duration: Duration)? {
        guard !delivered else { return nil }
        let image = try decode()
        delivered = true
        AnimationFrameCounter.count()
        return (image, .zero)
    }

    func rewind() throws { delivered = false }
}

/// Counts the frames decoders composite in a task and the tasks it starts (a frame window's producer
/// inherits it): tests and benchmarks set one to see how many frames a call decoded, or that a refusal
/// decoded none.
package final class AnimationFrameCounter: Sendable {
    /// The counter frames of the current task are added to, if any.
    @TaskLocal package static var current: AnimationFrameCounter?

    private let frames = Mutex(0)

    /// Creates a counter at zero.
    package init() {}

    /// The frames counted so far.
    package var count: Int { frames.withLock { $0 } }

    /// Adds one frame to the current task's counter.
    static func count() {
        current?.frames.withLock { $0 += 1 }
    }
}
