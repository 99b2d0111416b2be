import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MediaAssetsImage

/// `AnimationFrames` and `AnimationFrameReader`: frames composited on the canvas and reduced as they are made,
/// in order with their durations, looped as the file says, at most a window of them decoded ahead, and
/// decoding stopped by cancellation. Frames are counted with `AnimationFrameCounter`.
@Suite("Animation frame window", .enabled(if: CodecAvailability.gif, "install libgif7"))
struct AnimationFrameWindowTests {
    /// 48×48 moving bands, 6 frames, looping forever.
    static func bands(frameCount: Int = 6) throws -> Data { try GIFWriter().bands(side: 48, frameCount: frameCount) }

    @Test("window frames equal a whole decode at that size: same images, order and durations")
    func windowEqualsWholeDecode() async throws {
        // Given 6 frames of 48×48 and a display size of 12 px
        let data = try Self.bands()
        let options = ImageDecodingOptions(targetSize: .square(12))

        // When played through the window, and decoded whole at that size and at full size
        let played = try await collect(try AnimationFrames(data: data, options: options), 6)
        let whole = try ImageCodecRegistry.standard.decodeAnimation(data, options: options)
        let full = try ImageCodecRegistry.standard.decodeAnimation(data)

        // Then the window's frames are the whole decode's, each the full-size frame reduced (reduced as composited)
        #expect(played.count == 6 && whole.frames.count == 6)
        #expect(played == whole.frames)
        #expect(played.allSatisfy { $0.image.width == 12 && $0.image.height == 12 })
        #expect(played.map(\.duration) == Array(repeating: .milliseconds(40), count: 6))
        #expect(
            whole.frames.map(\.image) == full.frames.map { AnimationFrameScaling.scaled($0.image, to: .square(12)) })
        #expect(Set(played.map(\.image)).count == 6, "every frame differs")
    }

    @Test("disposal and transparency composite the same way through the window")
    func disposalThroughTheWindow() async throws {
        // Given the four-frame sequence that exercises every disposal method, played at full size
        let data = try GIFDecodingTests.disposalSequence()
        let played = try await collect(try AnimationFrames(data: data), 4)

        // Then the frames are the whole decode's
        #expect(played == (try ImageCodecRegistry.standard.decodeAnimation(data)).frames)
    }

    @Test("loop counts: n plays then the end, none plays once, 0 plays forever, a still is one frame")
    func loopCounts() async throws {
        let frames = (0..<3).map { GIFFixtures.Frame(width: 2, height: 1, indices: [UInt8($0), 3]) }
        // NETSCAPE 1 (repeat once) is 2 plays: 6 frames, then the sequence ends
        let twice = try GIFFixtures.gif(width: 2, height: 1, frames: frames, loopCount: 1)
        let playedTwice = try await collect(try AnimationFrames(data: twice), 100)
        #expect(playedTwice.count == 6)
        #expect(Array(playedTwice[3...]) == Array(playedTwice[..<3]))
        // No NETSCAPE extension: one play
        let once = try GIFFixtures.gif(width: 2, height: 1, frames: frames)
        #expect(try await collect(try AnimationFrames(data: once), 100).count == 3)
        // 0: forever (a prefix of 10 keeps cycling)
        let forever = try GIFFixtures.gif(width: 2, height: 1, frames: frames, loopCount: 0)
        let ten = try await collect(try AnimationFrames(data: forever), 10)
        #expect(ten.count == 10 && ten[9] == ten[0] && ten[4] == ten[1])
        // A still JPEG: one frame at the display size, then the end
        let jpeg = try ImageEncoder.jpeg(Image(width: 64, height: 32, fill: .white), quality: 90)
        let still = try await collect(
            try AnimationFrames(data: jpeg, options: ImageDecodingOptions(targetSize: .square(8))), 100
        )
        #expect(still.count == 1 && still[0].image.width == 16 && still[0].image.height == 8)
    }

    @Test("at most the window's frames are decoded ahead of the frame shown")
    func windowBound() async throws {
        // Given 20 frames and a window of 2 frames
        let data = try Self.bands(frameCount: 20)
        let frames = try AnimationFrames(data: data, window: AnimationFrameWindow(frameCount: 2))
        let counter = AnimationFrameCounter()

        try await AnimationFrameCounter.$current.withValue(counter) {
            // When one frame is taken and the decoder has filled the window
            let iterator = frames.makeAsyncIterator()
            _ = try await iterator.next()
            let buffer = try #require(iterator.buffer)
            try await waitUntil("the producer waits for room") { buffer.isProducerWaiting }

            // Then it decoded the frame shown and 2 more, and stopped
            #expect(counter.count == 3)
            #expect(buffer.queuedCount == 2)

            // When one more is taken, exactly one more is decoded
            _ = try await iterator.next()
            try await waitUntil("the producer waits again") { buffer.isProducerWaiting && counter.count == 4 }
            #expect(buffer.queuedCount == 2)
        }
    }

    @Test("the byte bound limits the window too, and one frame is always decoded ahead")
    func windowByteBound() async throws {
        // Given 48×48 frames (9,216 bytes each) and windows of 2.5 frames' bytes and of 1 byte
        let data = try Self.bands(frameCount: 20)
        for (bytes, expectedQueued) in [(23_040, 2), (1, 1)] {
            let frames = try AnimationFrames(
                data: data, window: AnimationFrameWindow(frameCount: 8, byteCount: bytes)
            )
            let iterator = frames.makeAsyncIterator()
            _ = try await iterator.next()
            let buffer = try #require(iterator.buffer)
            try await waitUntil("the producer waits for room") { buffer.isProducerWaiting }
            #expect(buffer.queuedCount == expectedQueued, "byteCount \(bytes)")
        }
    }

    @Test("cancelling the iterating task stops decoding; so does dropping the iterator")
    func cancellationStopsDecoding() async throws {
        // Given an animation that loops forever, played by a task that counts the frames it takes
        let data = try Self.bands()
        let frames = try AnimationFrames(data: data, window: AnimationFrameWindow(frameCount: 2))
        let counter = AnimationFrameCounter()
        let taken = SharedCount()
        let producer = Mutex<Task<Void, Never>?>(nil)
        let player = Task {
            try await AnimationFrameCounter.$current.withValue(counter) {
                let iterator = frames.makeAsyncIterator()
                while try await iterator.next() != nil {
                    producer.withLock { $0 = iterator.producer }
                    taken.add()
                }
            }
        }

        // When it has taken 5 frames and is cancelled
        try await waitUntil("5 frames taken") { taken.value >= 5 }
        player.cancel()
        let outcome = await player.result

        // Then it ends with CancellationError, the decoding task ends, and nothing more is decoded
        #expect(throws: CancellationError.self) { try outcome.get() }
        try await Self.waitForEnd(of: try #require(producer.withLock { $0 }))
        let decoded = counter.count
        #expect(decoded <= taken.value + 2 + 1, "at most the window and the frame under way past those taken")

        // Given a fresh iterator dropped after one frame
        let dropped = Mutex<Task<Void, Never>?>(nil)
        try await {
            let iterator = frames.makeAsyncIterator()
            _ = try await iterator.next()
            dropped.withLock { $0 = iterator.producer }
        }()
        // Then its decoding task ends too (the sequence loops forever, so only cancellation ends it)
        try await Self.waitForEnd(of: try #require(dropped.withLock { $0 }))
    }

    /// Returns once `task` has ended; fails (rather than hang) if it is still decoding after the poll's bound.
    static func waitForEnd(of task: Task<Void, Never>) async throws {
        let ended = SharedCount()
        Task {
            await task.value
            ended.add()
        }
        try await waitUntil("the decoding task ends") { ended.value == 1 }
    }

    @Test("frames by index: forward, and backward through a rewind")
    func framesByIndex() throws {
        // Given a reader of 6 frames at 12 px
        let data = try Self.bands()
        let options = ImageDecodingOptions(targetSize: .square(12))
        let whole = try ImageCodecRegistry.standard.decodeAnimation(data, options: options)
        let reader = try AnimationFrameReader(data: data, options: options)

        // When frames are read out of order
        let picked = try [4, 1, 5, 0].map { try reader.frame(at: $0) }

        // Then each is the whole decode's frame at that index
        #expect(picked == [4, 1, 5, 0].map { whole.frames[$0] })
        #expect(reader.info == AnimationInfo(format: .gif, canvas: .square(48), frameCount: 6, loopCount: 0))
        #expect(reader.frameSize == .square(12) && reader.nextIndex == 1)
    }

    @Test("an animated WebP plays through the window as it decodes whole", .enabled(if: CodecAvailability.webpDemux))
    func animatedWebPWindow() async throws {
        // Given a lossless animated WebP of 4 frames of 40×40 with alpha, playing twice
        let frames = (0..<4).map { index in
            AnimatedImage.Frame(
                image: Image(
                    width: 40, height: 40, fill: RGBA(red: UInt8(index * 60), green: 90, blue: 200, alpha: 200)),
                duration: .milliseconds(30 * (index + 1))
            )
        }
        let data = try WebPEncoder(compression: .lossless).encode(AnimatedImage(frames: frames, loopCount: 2))
        let options = ImageDecodingOptions(targetSize: .square(10))

        // When played through a window of 1 frame, and decoded whole at that size
        let played = try await collect(
            try AnimationFrames(data: data, options: options, window: AnimationFrameWindow(frameCount: 1)), 100
        )
        let whole = try ImageCodecRegistry.standard.decodeAnimation(data, options: options)

        // Then both give the same 10×10 frames and durations, the window twice over
        #expect(played.count == 8)
        #expect(Array(played[..<4]) == whole.frames && Array(played[4...]) == whole.frames)
        #expect(whole.frames.map(\.duration) == frames.map(\.duration))
        #expect(whole.frames.allSatisfy { $0.image.width == 10 && $0.image.height == 10 })
    }
}

/// The first `count` frames of `frames` (fewer when the sequence ends first).
func collect(_ frames: AnimationFrames, _ count: Int) async throws -> [AnimatedImage.Frame] {
    var collected: [AnimatedImage.Frame] = []
    for try await frame in frames.prefix(count) { collected.append(frame) }
    return collected
}
