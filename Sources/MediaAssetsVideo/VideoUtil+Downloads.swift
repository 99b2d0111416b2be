import Foundation
import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// A completed progressive download, read by ranges from its file.
struct DownloadedVideo: Sendable {
    let file: URL
    let info: VideoContentInfo

    /// The bytes `range`, read on a dispatch queue.
    func data(_ range: Range<Int>) async throws -> Data {
        let file = file
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Self.read(range, of: file) }) }
        }
    }

    /// Delivers `range` a window at a time (one read per window), calling `beforeWindow` first.
    func read(
        _ range: Range<Int>, windowSize: Int, beforeWindow: () async throws -> Void,
        deliver: (Data) async throws -> Void
    ) async throws {
        var start = range.lowerBound
        while start < range.upperBound {
            try await beforeWindow()
            let end = min(range.upperBound, start + max(1, windowSize))
            try await deliver(try await data(start..<end))
            start = end
        }
    }

    private static func read(_ range: Range<Int>, of file: URL) throws -> Data {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw VideoDownloadError.storageFailed(path: file.path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var data = Data(count: range.count)
        let filled = data.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < buffer.count {
                let count = pread(
                    descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(range.lowerBound + done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                done += count
            }
            return done
        }
        guard filled == range.count else {
            throw VideoDownloadError.lengthMismatch(
                url: file, expected: range.upperBound, actual: range.lowerBound + filled)
        }
        return data
    }
}

extension VideoUtil {
    /// The completed download of what `request` names, if `downloads` holds one.
    func downloadedFile(for request: AssetRequest) -> DownloadedVideo? {
        guard let downloads, let found = downloads.downloadedProgressive(forKey: manager.cacheKey(for: request)) else {
            return nil
        }
        return DownloadedVideo(file: found.file, info: found.info)
    }
}
