import Foundation
import MediaAssets
import MediaAssetsImage

extension HLSUtil {
    /// A still of the HLS stream `request` names (a media playlist), at `position`, in `style`.
    ///
    /// Reads only the segment that holds the time (with its initialization section for fMP4), through the
    /// util's cache, and decodes the frame at the time within it; stored and reused as `VideoUtil`'s stills
    /// are (`VideoUtil.frame(for:at:style:options:)`), under the playlist's key.
    ///
    /// - Throws: `VideoError.frameUnavailable` for a time at or past the end or an encrypted segment, the errors of
    ///   `VideoUtil.frame(for:at:style:options:)` for the decode, those of `mediaPlaylist(for:)` and
    ///   `data(for:headers:)` for the bytes.
    public func frame(
        for request: AssetRequest, at position: VideoFramePosition,
        style: some ImageProcessing = AvatarStyle.original, options: VideoFrameOptions = .init()
    ) async throws -> Image {
        try await StillCache(manager: manager, storageType: storageType, pool: framePool).still(
            of: manager.cacheKey(for: request), url: request.url, at: position, style: style, options: options
        ) { [self] box in
            try await decodeFrame(of: request, at: position, box: box, options: options)
        }
    }

    private func decodeFrame(
        of request: AssetRequest, at position: VideoFramePosition, box: Int, options: VideoFrameOptions
    ) async throws -> Image {
        let library = try FFmpegLibrary.system.get()
        let playlist = try await mediaPlaylist(for: request)
        let time: Double
        switch position {
        case .time(let duration): time = VideoFramePosition.seconds(duration)
        case .fraction(let fraction): time = playlist.duration * min(1, max(0, fraction))
        }
        guard time < playlist.duration, var segment = playlist.segments.first else {
            throw VideoError.frameUnavailable(
                url: request.url, reason: "\(time) s is not within its \(playlist.duration) s")
        }
        // The segment that holds the time, and where it starts.
        var start = 0.0
        for candidate in playlist.segments {
            segment = candidate
            if time < start + candidate.duration { break }
            start += candidate.duration
        }
        guard segment.key == nil else {
            throw VideoError.frameUnavailable(url: segment.uri, reason: "the segment is encrypted")
        }
        var bytes = Data()
        if let map = segment.map {
            bytes = try await data(for: HLSResource(uri: map.uri, byteRange: map.byteRange, kind: .initSection))
        }
        bytes += try await data(for: HLSResource(uri: segment.uri, byteRange: segment.byteRange))
        guard bytes.count <= options.maxBytesRead else {
            throw VideoError.frameLimitExceeded(
                url: segment.uri, reason: "its segment has \(bytes.count) bytes, over \(options.maxBytesRead)")
        }
        let whole = bytes
        let source = FrameSource(url: segment.uri, length: whole.count, blockSize: whole.count, byteLimit: .max) {
            range in whole.subdata(in: range)
        }
        let within = VideoFramePosition.time(.seconds(max(0, time - start)))
        let outcome = try await VideoUtil.decode(
            source, at: within, box: box, options: options, library: library, limiter: frameLimiter)
        return try outcome.get(source: source, url: segment.uri)
    }
}
