import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil: removing and pinning an image")
struct ImageUtilStorageTests {
    @Test func removeAssetTakesTheOriginalItsVariantsAndPlaceholderEverywhere() async throws {
        // Given an avatar fetched in two styles, with its placeholder, all written
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        _ = try await harness.util.image(for: url, style: .circle(diameter: 96))
        _ = try await harness.util.image(for: url, style: .circle(diameter: 40))
        // The placeholder is made off the ask's path: wait until it is staged, then written.
        try await waitUntil("the placeholder is made") { (try? await harness.util.placeholder(for: request)) != nil }
        await harness.manager.waitForPendingWrites()
        let keys = [
            harness.manager.cacheKey(for: request), harness.util.cacheKey(for: request, style: .circle(diameter: 96)),
            harness.util.cacheKey(for: request, style: .circle(diameter: 40)),
            harness.manager.cacheKey(for: request).variant(ImageUtil.placeholderIdentifier),
        ]
        for key in keys { #expect(try await harness.isStored(key), "\(key) stored") }

        // When the image is removed
        try await harness.util.removeAsset(for: url)

        // Then nothing of it is left in memory or on disk, and the next ask downloads it again
        for key in keys { #expect(try await !harness.isStored(key), "\(key) removed") }
        #expect(harness.util.cachedImage(for: request, style: .circle(diameter: 96)) == nil)
        _ = try await harness.util.image(for: url, style: .circle(diameter: 96))
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 2)
    }

    @Test func aPinnedAvatarIsKeptThroughAMemoryTrim() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/own.jpg", try ImageUtilFixtures.gradientJPEG())
        try await harness.util.pinAsset(for: AssetRequest(url: url))
        _ = try await harness.util.image(for: url, style: .circle(diameter: 96))
        await harness.manager.trimMemory()
        #expect(harness.util.cachedImage(for: AssetRequest(url: url), style: .circle(diameter: 96)) != nil)
        try await harness.util.unpinAsset(for: AssetRequest(url: url))
        await harness.manager.trimMemory()
        #expect(harness.util.cachedImage(for: AssetRequest(url: url), style: .circle(diameter: 96)) == nil)
    }
}
