import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

/// `ImageUtil.animationFrames(for:)` over a loopback origin: bytes fetched once and checked from their headers,
/// frames at the display size, styled variants recorded while they first play, undecodable frames removing
/// what was stored, and limits checked from the headers before any frame is decoded.
@Suite(
    "ImageUtil animation frames",
    .enabled(if: CodecAvailability.gif && CodecAvailability.webpDemux, "install libgif7, libwebp7, libwebpdemux2")
)
struct ImageUtilAnimationFramesTests {
    @Test("frames play at the display size from one download; a second play is served from memory")
    func playsFromOneDownload() async throws {
        // Given a 48×48 GIF of 6 frames served once
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let gif = try GIFWriter().bands(side: 48, frameCount: 6)
        let url = harness.serve("/bands.gif", gif, contentType: "image/gif")
        let request = AssetRequest(url: url)

        // When its frames are played at 12 px, then played again
        let frames = try await harness.util.animationFrames(for: request, targetSize: .square(12))
        let first = try await collect(frames, 6)
        let again = try await collect(try await harness.util.animationFrames(for: request), 2)

        // Then one request, the frames of a whole decode at 12 px, and the original stored as it came
        #expect(harness.origin.requestCount(for: "/bands.gif") == 1)
        #expect(frames.info == AnimationInfo(format: .gif, canvas: .square(48), frameCount: 6, loopCount: 0))
        let whole = try ImageCodecRegistry.standard.decodeAnimation(
            gif, options: ImageDecodingOptions(targetSize: .square(12))
        )
        #expect(first == whole.frames)
        #expect(again.map { $0.image.width } == [48, 48])
        await harness.manager.waitForPendingWrites()
        let key = harness.manager.cacheKey(for: request)
        #expect(try await harness.manager.readData(forKey: key, storageType: .disk) == gif)
    }

    @Test("styled frames are recorded as an animated WebP variant while they first play; later plays read it")
    func styledVariantRecordedWhilePlaying() async throws {
        // Given the 48×48 GIF of 6 frames
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/bands.gif", try GIFWriter().bands(side: 48, frameCount: 6), contentType: "image/gif")
        let request = AssetRequest(url: url)
        let style = AvatarStyle.circle(diameter: 16)

        // When its circle avatar plays one pass
        let firstPlay = try await harness.util.animationFrames(for: request, style: style)
        let styled = try await collect(firstPlay, 6)

        // Then the frames are styled at 16 px, and the variant is stored once the pass is made
        #expect(styled.count == 6 && styled.allSatisfy { $0.image.width == 16 && $0.image.height == 16 })
        #expect(styled.allSatisfy { $0.image[0, 0].alpha == 0 }, "the circle's corners are transparent")
        let variantKey = harness.manager.cacheKey(for: request).variant("circle(16),animated-webp")
        try await waitUntil("the variant is stored") {
            (try? await harness.manager.cachedEntry(forKey: variantKey, storageType: .hybrid(.image))) != nil
        }
        await harness.manager.waitForPendingWrites()
        let stored = try #require(try await harness.manager.readData(forKey: variantKey, storageType: .disk))
        #expect(ImageFormat.sniff(stored) == .webp)

        // When it plays again, and is asked for whole
        let secondPlay = try await harness.util.animationFrames(for: request, style: style)
        let replayed = try await collect(secondPlay, 6)
        let whole = try await harness.util.animatedImage(for: request, style: style)

        // Then both read the stored variant: 16 px WebP frames with the same durations, no new download
        #expect(secondPlay.info == AnimationInfo(format: .webp, canvas: .square(16), frameCount: 6, loopCount: 0))
        #expect(replayed.map(\.duration) == styled.map(\.duration))
        #expect(whole.frames.count == 6 && whole.size == .square(16))
        #expect(harness.origin.requestCount(for: "/bands.gif") == 1)
    }

    @Test("a player that leaves as soon as it has shown every frame once still leaves the variant recorded")
    func variantRecordedWhenThePlayerLeavesAfterOnePass() async throws {
        // Given the 48×48 GIF of 6 frames, decoded one frame ahead
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/bands.gif", try GIFWriter().bands(side: 48, frameCount: 6), contentType: "image/gif")
        let request = AssetRequest(url: url)
        let style = AvatarStyle.circle(diameter: 16)
        let variantKey = harness.manager.cacheKey(for: request).variant("circle(16),animated-webp")

        // When a player takes the 6 frames and drops its iterator at once, each time
        for _ in 0..<5 {
            try await harness.manager.removeData(forKey: variantKey, storageType: .hybrid(.image))
            let frames = try await harness.util.animationFrames(
                for: request, style: style, window: AnimationFrameWindow(frameCount: 1)
            )
            #expect(try await collect(frames, 6).count == 6)

            // Then the variant was handed to the manager before the last frame was: it is there at once
            let stored = try await harness.manager.cachedEntry(forKey: variantKey, storageType: .hybrid(.image))
            #expect(stored.map { ImageFormat.sniff($0.data) } == .webp)
        }
        #expect(harness.origin.requestCount(for: "/bands.gif") == 1)
    }

    @Test("a frame that fails to decode ends the sequence as undecodable and the stored bytes are removed")
    func undecodableFrameRemovesTheOriginal() async throws {
        // Given a two-frame GIF whose second frame's compressed pixels are garbage (its blocks stay whole, so
        // the header scan passes)
        var bytes = Array(
            try GIFFixtures.gif(
                width: 8, height: 8,
                frames: Array(
                    repeating: GIFFixtures.Frame(width: 8, height: 8, indices: Array(repeating: 1, count: 64)), count: 2
                )
            )
        )
        let secondFrame = try #require(bytes.indices.filter { bytes[$0] == 0x2C && $0 > 30 }.last)
        let blockLength = Int(bytes[secondFrame + 11])
        for offset in (secondFrame + 12)..<(secondFrame + 12 + blockLength) { bytes[offset] = 0xFF }
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/broken.gif", Data(bytes), contentType: "image/gif"))
        #expect(try ImageCodecRegistry.standard.animationInfo(of: Data(bytes)).frameCount == 2)

        // When it is played
        let frames = try await harness.util.animationFrames(for: request)
        await harness.manager.waitForPendingWrites()
        let key = harness.manager.cacheKey(for: request)
        #expect(try await harness.isStored(key))
        let iterator = frames.makeAsyncIterator()
        _ = try await iterator.next()

        // Then the second frame throws undecodable naming the URL and key, and nothing stays stored
        await #expect {
            _ = try await iterator.next()
        } throws: { error in
            guard case .undecodable(let url, let failedKey, _) = error as? ImageUtilError else { return false }
            return url == request.url && failedKey == key
        }
        #expect(try await harness.isStored(key) == false)
    }

    @Test("a 200-frame 1000×1000 GIF is refused whole from its headers, before any frame is decoded, yet plays")
    func limitsFromTheHeaders() async throws {
        // Given 200 frames on a 1000×1000 screen (one-pixel frames keep the file small)
        let pixel = GIFFixtures.Frame(width: 1, height: 1, indices: [1])
        let gif = try GIFFixtures.gif(width: 1000, height: 1000, frames: Array(repeating: pixel, count: 200))
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/large.gif", gif, contentType: "image/gif"))
        let counter = AnimationFrameCounter()

        // When it is asked for whole
        await AnimationFrameCounter.$current.withValue(counter) {
            await #expect {
                _ = try await harness.util.animatedImage(for: request)
            } throws: { error in
                guard case .undecodable(_, _, let reason) = error as? ImageUtilError else { return false }
                return reason
                    == .animationTooLarge(format: .gif, frameCount: 200, canvas: .square(1000), limit: 100_000_000)
            }
        }

        // Then no frame was decoded, and the message says so
        #expect(counter.count == 0)
        let message = ImageError.animationTooLarge(
            format: .gif, frameCount: 200, canvas: .square(1000), limit: 100_000_000
        ).description
        #expect(message.contains("200 frames") && message.contains("refused before decoding"))

        // When it is played through a window of one frame at 20 px instead
        let frames = try await harness.util.animationFrames(
            for: request, targetSize: .square(20), window: AnimationFrameWindow(frameCount: 1)
        )
        let played = try await collect(frames, 1)

        // Then it plays (downloaded again: the refusal stored nothing)
        #expect(played.count == 1 && played[0].image.width == 20)
        #expect(frames.info.frameCount == 200)
        #expect(harness.origin.requestCount(for: "/large.gif") == 2)
    }
}
