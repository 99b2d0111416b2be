import Foundation
import MediaAssets
import Synchronization

/// Turns the pieces of an `ImageTask`'s download into styled previews, off the download's own path.
///
/// Pieces are queued to one task of its own, which makes an incremental decoder from the first bytes
/// (`ImageCodecRegistry.makeIncrementalDecoder(leadingBytes:options:)`), feeds it under the manager's decode
/// limiter and styles each preview under the process limiter, both on the manager's executor. A download
/// joined after its first byte gives no previews (the decoder needs the body from its start), and a preview
/// is never stored.
final class PreviewFeeder: Sendable {
    /// Bytes a format is recognised from before a decoder is chosen.
    static let leadingByteCount = 64

    private let pieces: AsyncStream<Data>.Continuation
    private let consumer: Task<Void, Never>
    /// The offset the next piece must start at; -1 once the pieces stopped being contiguous.
    private let nextOffset = Mutex<Int64>(0)

    init(
        util: ImageUtil, style: some ImageProcessing, priority: LivePriority, sink: AsyncStream<Image>.Continuation
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self)
        pieces = continuation
        consumer = Task {
            await Self.decodePreviews(of: stream, util: util, style: style, priority: priority, sink: sink)
        }
    }

    /// Queues the piece of the body that ends at byte `end`.
    func add(_ piece: Data, endingAt end: Int64) {
        let contiguous = nextOffset.withLock { offset -> Bool in
            guard offset >= 0, end - Int64(piece.count) == offset else {
                offset = -1
                return false
            }
            offset = end
            return true
        }
        if contiguous { pieces.yield(piece) } else { pieces.finish() }
    }

    /// Stops making previews and returns once no more will be delivered.
    func finish() async {
        pieces.finish()
        consumer.cancel()
        await consumer.value
    }

    private static func decodePreviews(
        of pieces: AsyncStream<Data>, util: ImageUtil, style: some ImageProcessing, priority: LivePriority,
        sink: AsyncStream<Image>.Continuation
    ) async {
        var options = util.renderer.decodingOptions
        options.targetSize = style.targetSize
        var leading = Data()
        var decoder: (any IncrementalImageDecoding)?
        for await piece in pieces {
            if Task.isCancelled { return }
            var input = piece
            if decoder == nil {
                leading.append(piece)
                guard leading.count >= leadingByteCount else { continue }
                guard let made = util.renderer.codecs.makeIncrementalDecoder(leadingBytes: leading, options: options)
                else { return }
                decoder = made
                input = leading
                leading = Data()
            }
            guard let active = decoder else { return }
            let preview: Image?
            do {
                preview = try await util.manager.runtime.decodeLimiter.run(priority: priority) {
                    try await util.manager.runtime.runOnExecutor { try active.append(input) }
                }
            } catch {
                return  // undecodable or cancelled: the final decode reports what is wrong
            }
            guard let preview else { continue }
            guard
                let styled = try? await util.manager.runtime.processLimiter.run(
                    priority: priority, { try await util.manager.runtime.runOnExecutor { try style.process(preview) } })
            else { return }
            sink.yield(styled)
        }
    }
}
