import CVideoFrames
import Foundation
import MediaAssets
import Synchronization

/// The bytes of one video as FFmpeg's demuxer reads them: its custom I/O context calls `read` and `seek` on
/// the decoding thread, and each read is served from one chunk-sized block fetched through
/// `VideoUtil.data(for:range:)`, so the demuxer reaches the chunk cache (and through it the network) only for
/// the blocks it asks for, and they stay cached for playback.
///
/// A read blocks the decoding thread (a thread of its own, never a shared one) while the block is fetched.
package final class FrameSource: @unchecked Sendable {
    // @unchecked: `position`, `block` and `bytesRead` are touched only by the one decoding thread;
    // the fetch in flight and the error are behind `shared`.
    let fetch: @Sendable (Range<Int>) async throws -> Data
    let url: URL
    let length: Int
    let blockSize: Int
    let byteLimit: Int
    private var position = 0
    private var block: (range: Range<Int>, data: Data)?
    /// Bytes of the distinct blocks the demuxer read (a block read again after a seek back counts once).
    private(set) var bytesRead = 0
    /// The blocks read, by their first byte.
    private var blocksRead: Set<Int> = []
    /// Called on the decoding thread with `bytesRead` after each new block.
    var onProgress: (@Sendable (Int) -> Void)?

    private struct Shared {
        var isCancelled = false
        var error: (any Error)?
        /// What the decoding thread waits on while a block is fetched.
        var waiting: DispatchSemaphore?
    }
    private let shared = Mutex(Shared())

    /// Where the blocks read are also tallied, beside other reads of the same video.
    let tally: VideoUtil.BlockTally?

    package init(
        url: URL, length: Int, blockSize: Int, byteLimit: Int, tally: VideoUtil.BlockTally? = nil,
        fetch: @escaping @Sendable (Range<Int>) async throws -> Data
    ) {
        self.tally = tally
        self.url = url
        self.length = length
        self.blockSize = max(4096, blockSize)
        self.byteLimit = byteLimit
        self.fetch = fetch
    }

    /// The error that ended a read, if one did (it explains FFmpeg's failure better than FFmpeg can).
    var error: (any Error)? { shared.withLock { $0.error } }

    /// Makes the read under way and every later one fail at once. The block being fetched is not cancelled: its
    /// chunk goes on to the cache (bytes that arrived are kept), at most one chunk beyond what was read.
    func cancel() {
        let waiting = shared.withLock { state -> DispatchSemaphore? in
            state.isCancelled = true
            if state.error == nil { state.error = CancellationError() }
            return state.waiting
        }
        waiting?.signal()
    }

    /// AVERROR_EOF.
    static let endOfFile: Int32 = -541_478_725
    /// AVERROR(EIO).
    static let ioError: Int32 = -5

    func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int32) -> Int32 {
        guard position < length else { return Self.endOfFile }
        if block.map({ !$0.range.contains(position) }) ?? true {
            let start = position / blockSize * blockSize
            let range = start..<min(length, start + blockSize)
            let isNew = !blocksRead.contains(start)
            guard !isNew || bytesRead + range.count <= byteLimit else {
                fail(VideoError.frameLimitExceeded(url: url, reason: "it would read more than \(byteLimit) bytes"))
                return Self.ioError
            }
            guard let data = fetchBlock(range) else { return Self.ioError }
            if isNew {
                blocksRead.insert(start)
                bytesRead += range.count
                tally?.add(start: start, count: range.count)
                onProgress?(bytesRead)
            }
            block = (range, data)
        }
        guard let (range, data) = block else { return Self.ioError }
        let count = min(Int(size), range.upperBound - position)
        data.withUnsafeBytes { bytes in
            let offset = position - range.lowerBound
            let start = bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            buffer.update(from: start, count: count)
        }
        position += count
        return Int32(count)
    }

    func seek(to offset: Int64, whence: Int32) -> Int64 {
        switch whence & ~0x20000 {  // AVSEEK_FORCE
        case 0x10000: return Int64(length)  // AVSEEK_SIZE
        case 0: position = Int(offset)
        case 1: position += Int(offset)
        case 2: position = length + Int(offset)
        default: return -1
        }
        position = min(max(0, position), length)
        return Int64(position)
    }

    private func fail(_ error: any Error) {
        shared.withLock { if $0.error == nil { $0.error = error } }
    }

    /// Fetches `range` on a task, waiting on this thread until it ends or the source is cancelled.
    private func fetchBlock(_ range: Range<Int>) -> Data? {
        let done = DispatchSemaphore(value: 0)
        let result = BlockResult()
        let started = shared.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.waiting = done
            return true
        }
        guard started else { return nil }
        // Not cancelled with the read: a chunk the fetch has begun is finished and stored for the next reader.
        Task { [fetch] in
            let outcome: Result<Data, any Error>
            do { outcome = .success(try await fetch(range)) } catch { outcome = .failure(error) }
            result.value.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        let cancelled = shared.withLock { state -> Bool in
            state.waiting = nil
            return state.isCancelled
        }
        if cancelled { return nil }
        switch result.value.withLock({ $0 }) {
        case .success(let data) where data.count == range.count: return data
        case .success(let data):
            fail(VideoError.shortBody(url: url, expected: range, receivedBytes: data.count))
            return nil
        case .failure(let error):
            fail(error)
            return nil
        case nil: return nil
        }
    }
}

/// The outcome of one block's fetch, handed from its task to the waiting thread.
private final class BlockResult: Sendable {
    let value = Mutex<Result<Data, any Error>?>(nil)
}

/// The C entry points of a `FrameSource`, passed to `ma_ff_decode_frame` with the source as `opaque`.
enum FrameSourceCallbacks {
    static let read: ma_ff_read_fn = { opaque, buffer, size in
        guard let opaque, let buffer else { return FrameSource.ioError }
        return Unmanaged<FrameSource>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, size: size)
    }
    static let seek: ma_ff_seek_fn = { opaque, offset, whence in
        guard let opaque else { return -1 }
        return Unmanaged<FrameSource>.fromOpaque(opaque).takeUnretainedValue().seek(to: offset, whence: whence)
    }
}
