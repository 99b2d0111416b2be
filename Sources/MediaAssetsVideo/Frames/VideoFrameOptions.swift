import Foundation

/// Where in a video a still is taken.
public enum VideoFramePosition: Hashable, Sendable {
    /// At a time from the start.
    case time(Duration)
    /// At a fraction of the duration (0 is the first frame, 0.6 is 60 % in), for containers that state it.
    case fraction(Double)

    /// `time` in seconds.
    static func seconds(_ time: Duration) -> Double {
        Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
    }

    /// How the position reads in a cache key: `t=3.000` or `f=0.600`.
    var identifier: String {
        switch self {
        case .time(let time): return "t=" + String(format: "%.3f", Self.seconds(time))
        case .fraction(let fraction): return "f=" + String(format: "%.3f", fraction)
        }
    }
}

/// How `VideoUtil.frame(for:at:style:options:)` takes a still, and the limits it checks first.
public struct VideoFrameOptions: Hashable, Sendable {
    /// `true`: the frame shown at the time, decoded from the keyframe before it. `false`: that keyframe itself,
    /// one frame decoded (faster; up to a keyframe interval early).
    public var exactFrame: Bool
    /// The largest width and height of a still in `.original` style; a style decodes toward its own size.
    public var maxPixelSize: Int
    /// Videos whose width times height exceeds this are refused before any frame is decoded.
    public var maxSourcePixelCount: Int
    /// The most bytes the demuxer may read (through the chunk cache) for one still: a file that needs more, or
    /// a hostile one that makes the demuxer wander, is refused with `VideoError.frameLimitExceeded`.
    public var maxBytesRead: Int

    /// Creates options: the exact frame, stills of at most 1,024 px, sources up to 8K, 64 MiB read at most.
    public init(
        exactFrame: Bool = true, maxPixelSize: Int = 1024, maxSourcePixelCount: Int = 7680 * 4320,
        maxBytesRead: Int = 64 << 20
    ) {
        self.exactFrame = exactFrame
        self.maxPixelSize = maxPixelSize
        self.maxSourcePixelCount = maxSourcePixelCount
        self.maxBytesRead = maxBytesRead
    }
}
