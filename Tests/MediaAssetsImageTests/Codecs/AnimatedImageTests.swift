import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(
    "Animated images: WebP encoding, styled frames, ImageUtil",
    .enabled(if: CodecAvailability.webpDemux && CodecAvailability.gif, "install libwebp7, libwebpdemux2, libgif7"),
    .offThePool)
struct AnimatedImageTests {
    static let frames: [AnimatedImage.Frame] = [
        .init(image: Image(width: 8, height: 6, fill: RGBA(red: 255, green: 0, blue: 0)), duration: .milliseconds(80)),
        .init(
            image: Image(width: 8, height: 6, fill: RGBA(red: 0, green: 0, blue: 255, alpha: 128)),
            duration: .milliseconds(30)),
        .init(image: Image(width: 8, height: 6, fill: .white), duration: .milliseconds(1200)),
    ]

    @Test("a lossless animated WebP round-trips frames, durations, loop count and alpha")
    func animatedWebPRoundTrip() throws {
        // Given an animation with a translucent frame
        let animation = AnimatedImage(frames: Self.frames, loopCount: 4)

        // When encoded and decoded
        let data = try WebPEncoder(compression: .lossless).encode(animation)
        let decoded = try ImageCodecRegistry.standard.decodeAnimation(data)

        // Then everything comes back
        #expect(ImageFormat.sniff(data) == .webp)
        #expect(decoded == animation)
        #expect(decoded.totalDuration == .milliseconds(1310))
        #expect(try ImageDecoder.decode(data) == Self.frames[0].image)
    }

    @Test("styling an animation styles every frame and keeps the timing")
    func processedFrames() throws {
        let animation = AnimatedImage(frames: Self.frames, loopCount: 0)
        let styled = try animation.processed(by: AvatarStyle.circle(diameter: 6))
        #expect(styled.frames.count == 3 && styled.size == .square(6))
        #expect(styled.frames.map(\.duration) == Self.frames.map(\.duration))
        #expect(styled.frames.allSatisfy { $0.image[0, 0].alpha == 0 })
    }

    @Test("ImageUtil decodes an animated GIF once, keeps it in memory, and caches a styled animated WebP variant")
    func imageUtilAnimation() async throws {
        // Given a manager whose loader serves the four-frame GIF
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(string: "https://example.invalid/party.gif")!
        let loader = FixedResponseLoader(
            DataResponse(
                url: url, statusCode: 200, headers: ["Content-Type": "image/gif"],
                data: try GIFDecodingTests.disposalSequence())
        )
        let manager = try AssetsManager.forTesting(directory: directory, loader: loader)
        let images = ImageUtil(manager: manager)

        // When the animation, its circle avatar and the still are asked for, twice each
        let animation = try await images.animatedImage(for: AssetRequest(url: url))
        let again = try await images.animatedImage(for: AssetRequest(url: url))
        let avatar = try await images.animatedImage(for: AssetRequest(url: url), style: .circle(diameter: 4))
        let avatarAgain = try await images.animatedImage(for: AssetRequest(url: url), style: .circle(diameter: 4))
        let still = try await images.image(for: url)

        // Then one download, four frames, a 4×4 styled animation stored as WebP, and the still is frame one
        #expect(loader.callCount == 1)
        #expect(animation.frames.count == 4 && again == animation)
        #expect(avatar.frames.count == 4 && avatar.size == .square(4) && avatarAgain == avatar)
        let variantKey = manager.cacheKey(for: AssetRequest(url: url)).variant("circle(4),animated-webp")
        await manager.waitForPendingWrites()  // written to .hybrid(.image)'s disk tier behind the result
        let stored = try #require(try await manager.readData(forKey: variantKey, storageType: .disk))
        #expect(ImageFormat.sniff(stored) == .webp)
        #expect(try ImageCodecRegistry.standard.decodeAnimation(stored).frames.count == 4)
        #expect(still == animation.firstFrame)
    }
}
