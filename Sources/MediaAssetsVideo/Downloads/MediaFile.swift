import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The media file of a progressive download, written at positions in order; its size is how far the
/// download came. Used by one download's task at a time, on the store's queue.
final class MediaFile: @unchecked Sendable {
    // @unchecked: the descriptor never changes; calls are serialised on the store's queue.
    private let descriptor: Int32
    let path: String

    init(url: URL) throws(VideoDownloadError) {
        path = url.path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .storageFailed(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// The file's size now.
    func size() throws(VideoDownloadError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure() }
        return Int(info.st_size)
    }

    /// Writes `pieces` one after another from `offset`.
    func write(_ pieces: [Data], at offset: Int) throws {
        var position = offset
        for piece in pieces {
            try piece.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                var written = 0
                while written < bytes.count {
                    let count = pwrite(
                        descriptor, bytes.baseAddress! + written, bytes.count - written,
                        off_t(position + written))
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { throw failure() }
                    written += count
                }
            }
            position += piece.count
        }
    }

    /// Cuts the file to `length` bytes (0: the resource changed and starts over).
    func truncate(to length: Int) throws(VideoDownloadError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw failure() }
    }

    /// Flushes the file to the disk (once, when the download completes).
    func synchronize() throws(VideoDownloadError) {
        guard fsync(descriptor) == 0 else { throw failure() }
    }

    private func failure() -> VideoDownloadError {
        .storageFailed(path: path, reason: String(cString: strerror(errno)))
    }
}
