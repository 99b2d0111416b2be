import CVideoFrames
import Foundation
import MediaAssets
import MediaAssetsImage
import Synchronization

extension VideoUtil {
    /// A still of the video `request` names, at `position`, in `style`: a poster for a feed, a chat's
    /// attachment or a gallery, styled and encoded like any image.
    ///
    /// Looks in memory, then in storage (`configuration.storageType`) for the still under its own key (the
    /// video's key, the position, the style and its format); otherwise FFmpeg's demuxer reads the video through
    /// the chunk cache, asking only for the blocks it needs (the `moov` box wherever it is, then the samples
    /// from the keyframe before the time), which stay cached for playback. The frame is decoded, scaled toward
    /// the style's size (or `options.maxPixelSize`), styled on the manager's executor and stored in the image
    /// util's default format. Concurrent asks for one still share one decode.
    ///
    /// FFmpeg's libraries (5, 6 or 7) are loaded at run time; the demuxing and decoding run on a thread of
    /// their own, never on Swift's cooperative pool.
    ///
    /// - Throws: `VideoError.decoderMissing` when FFmpeg is not installed (naming the Debian package),
    ///   `.frameLimitExceeded` for a video over `options`' limits, `.frameUnavailable` for a damaged or
    ///   unsupported video or a time at or past its end, `AssetProcessingError` for a style that cannot be
    ///   drawn, the errors of `data(for:range:)` for the bytes, and `CancellationError`.
    public func frame(
        for request: AssetRequest, at position: VideoFramePosition,
        style: some ImageProcessing = AvatarStyle.original, options: VideoFrameOptions = .init()
    ) async throws -> Image {
        try await frame(for: request, at: position, style: style, options: options, bytesRead: nil)
    }

    /// `frame(for:at:style:options:)`, adding the blocks its demuxer read (none for a cached still) to
    /// `bytesRead`.
    package func frame(
        for request: AssetRequest, at position: VideoFramePosition, style: some ImageProcessing,
        options: VideoFrameOptions, bytesRead: BlockTally?
    ) async throws -> Image {
        try await StillCache(manager: manager, storageType: configuration.storageType, pool: framePool).still(
            of: manager.cacheKey(for: request), url: request.url, at: position, style: style, options: options
        ) { [self] box in
            try await decodeFrame(of: request, at: position, box: box, options: options, bytesRead: bytesRead)
        }
    }

    /// The distinct blocks several reads of one video touched (a preload and its poster), and their bytes.
    package final class BlockTally: Sendable {
        private let blocks = Mutex<[Int: Int]>([:])
        package init() {}
        /// The bytes of the distinct blocks added.
        package var value: Int { blocks.withLock { $0.values.reduce(0, +) } }
        func add(start: Int, count: Int) { blocks.withLock { $0[start] = count } }
    }

    /// `frame(for:at:style:options:)` of a plain request for `url`.
    public func frame(
        for url: URL, at position: VideoFramePosition, style: some ImageProcessing = AvatarStyle.original,
        options: VideoFrameOptions = .init()
    ) async throws -> Image {
        try await frame(for: AssetRequest(url: url), at: position, style: style, options: options)
    }

    /// Demuxes and decodes one frame through the chunk cache on a thread of its own, scaled to fit `box`.
    package func decodeFrame(
        of request: AssetRequest, at position: VideoFramePosition, box: Int, options: VideoFrameOptions,
        bytesRead: BlockTally? = nil
    ) async throws -> Image {
        let library = try loadedFrameLibrary()
        let length = try await contentInfo(for: request).length
        let source = FrameSource(
            url: request.url, length: length, blockSize: configuration.chunkSize, byteLimit: options.maxBytesRead,
            tally: bytesRead
        ) { [self] range in try await data(for: request, range: range) }
        let outcome = try await Self.decode(
            source, at: position, box: box, options: options, library: library, limiter: frameLimiter)
        state.withLock {
            $0.statistics.frameBytesRead += source.bytesRead
            if case .success = outcome { $0.statistics.framesDecoded += 1 }
        }
        return try outcome.get(source: source, url: request.url)
    }

    /// Decodes the frame at `position` of `source` on a thread of its own, once `limiter` admits it.
    package static func decode(
        _ source: FrameSource, at position: VideoFramePosition, box: Int, options: VideoFrameOptions,
        library: FFmpegLibrary, limiter: WorkLimiter
    ) async throws -> FrameOutcome {
        var frameRequest = ma_ff_frame_request()
        switch position {
        case .time(let time):
            frameRequest.seconds = VideoFramePosition.seconds(time)
            frameRequest.fraction = -1
        case .fraction(let fraction):
            frameRequest.fraction = min(1, max(0, fraction))
        }
        frameRequest.exact = options.exactFrame ? 1 : 0
        frameRequest.max_width = Int32(clamping: box)
        frameRequest.max_height = Int32(clamping: box)
        frameRequest.max_source_pixels = Int64(options.maxSourcePixelCount)
        frameRequest.io_buffer_size = 32 << 10
        let parameters = frameRequest
        return try await limiter.run {
            await withTaskCancellationHandler {
                await runOnOwnThread { decodeFrame(library: library, source: source, request: parameters) }
            } onCancel: {
                source.cancel()
            }
        }
    }

    /// What the decoding thread made.
    package enum FrameOutcome: Sendable {
        case success(Image)
        case failure(Int32, String)

        /// The image, or the error that explains the failure best: the source's own (a fetch, a limit,
        /// cancellation), else FFmpeg's.
        func get(source: FrameSource, url: URL) throws -> Image {
            switch self {
            case .success(let image): return image
            case .failure(let code, let reason):
                if let error = source.error { throw error }
                if code == Int32(MA_FF_TOO_LARGE) { throw VideoError.frameLimitExceeded(url: url, reason: reason) }
                throw VideoError.frameUnavailable(url: url, reason: reason)
            }
        }
    }

    /// Demuxes `source` and decodes the frame `request` asks for, on the calling thread (which blocks while
    /// `source` fetches).
    package static func decodeFrame(
        library: FFmpegLibrary, source: FrameSource, request: ma_ff_frame_request
    ) -> FrameOutcome {
        var request = request
        var frame = ma_ff_frame()
        var message = [CChar](repeating: 0, count: 256)
        let code = withExtendedLifetime(source) {
            ma_ff_decode_frame(
                library.pointer, Unmanaged.passUnretained(source).toOpaque(), FrameSourceCallbacks.read,
                FrameSourceCallbacks.seek, &request, &frame, &message, message.count)
        }
        defer { ma_ff_frame_free(&frame) }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard code == Int32(MA_FF_OK) else { return .failure(code, reason) }
        let count = Int(frame.width) * Int(frame.height) * 4
        let pixels = [UInt8](UnsafeBufferPointer(start: frame.rgba, count: count))
        return .success(Image(width: Int(frame.width), height: Int(frame.height), pixels: pixels))
    }

    /// Runs `work` on a new thread (it blocks while the chunk cache fetches), returning its result.
    static func runOnOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "MediaAssets.frame"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }
}

/// Takes a still from `data` as a video file, through the same I/O context and decoder as
/// `VideoUtil.frame(for:at:style:options:)`: nothing may crash or read outside the bytes. Does nothing when FFmpeg's
/// libraries are not installed.
@_spi(Fuzzing) public func fuzzVideoFrame(_ data: Data) {
    guard case .success(let library) = FFmpegLibrary.system else { return }
    let bytes = Data(data)
    let source = FrameSource(
        url: URL(string: "fuzz:video")!, length: bytes.count, blockSize: 4096, byteLimit: 4 << 20
    ) { range in bytes.subdata(in: range) }
    let request = ma_ff_frame_request(
        seconds: 0.5, fraction: -1, exact: 1, max_width: 64, max_height: 64, max_source_pixels: 1 << 22,
        io_buffer_size: 4096)
    _ = VideoUtil.decodeFrame(library: library, source: source, request: request)
}
