import Foundation

/// What an `AnimationFrames` iterator's decoding task does: decode each frame (one hop each), style it when
/// asked, push it into the window, and loop as the headers say.
///
/// With a `variant`, the first full pass also encodes the styled frames, one at a time, into an animated WebP
/// (`WebPEncoder.AnimationWriter`); with the pass's last frame (the headers' count, or the decoder's end when
/// they disagree) the variant is handed to `variant.store`, before that frame reaches the window, so a player
/// that leaves after one pass leaves it recorded; later loops decode it instead of the original (small
/// frames, no styling).
struct AnimationFrameProduction: Sendable {
    /// A styled animation recorded as an animated WebP while it first plays.
    struct Variant: Sendable {
        /// The encoder of each styled frame.
        var encoder: WebPEncoder
        /// Called once with the whole variant, after a complete first pass.
        var store: @Sendable (Data) async -> Void
    }

    var data: Data
    var info: AnimationInfo
    var options: ImageDecodingOptions
    var codecs: ImageCodecRegistry
    var work = AnimationFrameWork()
    /// Applied to every frame after it is reduced (an avatar style).
    var style: (@Sendable (Image) throws -> Image)?
    var variant: Variant?
    /// What the iterator throws for a frame that failed to decode (a util names its URL and key).
    var failure: @Sendable (any Error) async -> any Error = { $0 }

    /// Decodes into `buffer` until the animation has played its loops, the buffer is cancelled, or a frame
    /// fails.
    func produce(into buffer: FrameWindowBuffer) async {
        do {
            try await playLoops(into: buffer)
            buffer.finish()
        } catch is CancellationError {
            buffer.finish(throwing: CancellationError())
        } catch {
            buffer.finish(throwing: await failure(error))
        }
    }

    private func playLoops(into buffer: FrameWindowBuffer) async throws {
        var reader: AnimationFrameReader?
        var styling = style
        var writer = variant.map { WebPEncoder.AnimationWriter(encoder: $0.encoder) }
        var recorded: Data?
        var pass = 0
        while true {
            var framesInPass = 0
            while true {
                try await buffer.waitForRoom()
                var finished: Data?
                let frame: AnimatedImage.Frame? = try await work.run {
                    if reader == nil {
                        reader = try AnimationFrameReader(data: data, info: info, options: options, codecs: codecs)
                    }
                    guard var frame = try reader?.nextFrame() else { return nil }
                    if let styling { frame.image = try styling(frame.image) }
                    do {
                        try writer?.append(frame)
                    } catch {
                        writer = nil  // a variant that cannot be encoded is not recorded; playing goes on
                    }
                    framesInPass += 1
                    if framesInPass == info.frameCount, let variant = writer?.finish(loopCount: info.loopCount) {
                        // The headers' last frame ends the pass: the variant is made with it, not on the next
                        // turn, which a player that leaves after the last frame never takes.
                        writer = nil
                        finished = variant
                    }
                    return frame
                }
                guard let frame else { break }
                if let finished {
                    recorded = finished
                    await variant?.store(finished)
                }
                buffer.push(frame)
            }
            pass += 1
            if let finished = writer?.finish(loopCount: info.loopCount) {
                // Only the first pass records, and its decoder ended at a count other than the headers': the
                // variant is made here.
                recorded = finished
                await variant?.store(finished)
            }
            writer = nil
            if info.frameCount <= 1 || (info.loopCount != 0 && pass >= info.loopCount) { return }
            if let styledVariant = recorded {
                // Later loops decode the small styled variant instead of the original.
                reader = try AnimationFrameReader(
                    data: styledVariant, options: ImageDecodingOptions(maxPixelCount: options.maxPixelCount)
                )
                styling = nil
                recorded = nil
            } else {
                try reader?.rewind()
            }
        }
    }
}
