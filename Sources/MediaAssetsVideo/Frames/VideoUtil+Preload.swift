import CVideoFrames
import Foundation
import MediaAssets

extension VideoUtil {
    /// FFmpeg's libraries: the system's, unless a test set others.
    ///
    /// - Throws: `VideoError.decoderMissing` when they do not load.
    package func loadedFrameLibrary() throws(VideoError) -> FFmpegLibrary {
        try (frameLibraryOverride.withLock { $0 } ?? FFmpegLibrary.system).get()
    }

    /// FFmpeg's libraries, when they load.
    package var frameLibrary: FFmpegLibrary? { try? loadedFrameLibrary() }

    /// Caches what a player needs to start the video `request` names and play `seconds` of it — the container's
    /// index wherever it is, then the samples from the start — by running FFmpeg's demuxer over the chunk cache,
    /// or the first `byteLimit` bytes when `seconds` is `nil` or FFmpeg is not installed. Never reads more than
    /// `byteLimit` bytes of distinct chunks; returns how many it read (cached or fetched).
    package func preload(
        _ request: AssetRequest, seconds: Double?, byteLimit: Int, tally: BlockTally? = nil,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Int {
        let chunk = configuration.chunkSize
        guard let seconds, let library = frameLibrary else {
            let length = try await contentInfo(for: request).length
            let count = min(length, byteLimit / chunk * chunk)
            guard count > 0 else { return 0 }
            try await prefetch(for: request, byteCount: count)
            var start = 0
            while start < count {
                tally?.add(start: start, count: min(chunk, count - start))
                start += chunk
            }
            progress(count)
            return count
        }
        let length = try await contentInfo(for: request).length
        let source = FrameSource(
            url: request.url, length: length, blockSize: chunk, byteLimit: byteLimit, tally: tally
        ) {
            [self] range in try await data(for: request, range: range)
        }
        source.onProgress = progress
        let code = await withTaskCancellationHandler {
            await Self.runOnOwnThread {
                var reached = 0.0
                var message = [CChar](repeating: 0, count: 256)
                return withExtendedLifetime(source) {
                    ma_ff_scan(
                        library.pointer, Unmanaged.passUnretained(source).toOpaque(), FrameSourceCallbacks.read,
                        FrameSourceCallbacks.seek, seconds, 32 << 10, &reached, &message, message.count)
                }
            }
        } onCancel: {
            source.cancel()
        }
        switch source.error {
        case .none, .some(VideoError.frameLimitExceeded): break  // the share of the budget is full: done
        case .some(let error): throw error
        }
        if code != Int32(MA_FF_OK), source.bytesRead == 0 {
            throw VideoError.frameUnavailable(url: request.url, reason: "its container could not be read")
        }
        return source.bytesRead
    }
}
