import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil memory: variants cost their bitmap; decoded originals kept only when shown")
struct ImageUtilMemoryTests {
    /// The image partition every storage type of the default layout keeps decoded images in.
    static func imagePartition(_ harness: ImageUtilHarness) throws -> MemoryCache {
        try #require(try harness.manager.backend(for: .lru(.image)) as? MemoryCache)
    }

    @Test("a styled variant in memory is charged its bitmap alone: no encoded bytes, no kept original")
    func variantCostsItsBitmap() async throws {
        // Given a photo asked once as a 96 px circle (the default configuration)
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        _ = try await harness.util.image(for: request, style: ImageUtilFixtures.circle)
        try await waitUntil("the placeholder was stored") { (try? await harness.util.placeholder(for: request)) != nil }
        await harness.manager.waitForPendingWrites()

        // When the image partition is read
        let statistics = try Self.imagePartition(harness).statistics()
        let placeholderKey = harness.manager.cacheKey(for: request).variant("placeholder")
        let placeholderBytes = try #require(
            try await harness.manager.readData(forKey: placeholderKey, storageType: .disk))

        // Then it holds the variant's 96×96 bitmap and the placeholder's bytes, exactly
        #expect(statistics.count == 2)
        #expect(statistics.cost == 96 * 96 * 4 + placeholderBytes.count)
        let variantKey = harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle)
        let memoryEntry = try #require(try Self.imagePartition(harness).entry(forKey: variantKey))
        #expect(memoryEntry.data.isEmpty && memoryEntry.memoryCost == 96 * 96 * 4)
        // The encoded variant is on disk
        let stored = try #require(try await harness.manager.readData(forKey: variantKey, storageType: .disk))
        #expect(ImageFormat.sniff(stored) == .png)
    }

    @Test("an .original ask keeps the image it shows: the next ask is a memory hit")
    func originalAskIsKept() async throws {
        // Given the default policy
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When the original is asked twice
        let first = try await harness.util.image(for: url)
        let second = try await harness.util.image(for: url)

        // Then it was decoded once and the second ask came from memory
        #expect(first == second && first.width == 300 && first.height == 200)
        #expect(harness.util.statistics.decodes == 1)
        #expect(harness.util.statistics.memoryHits == 1)
    }

    @Test("with .never, not even an .original ask is kept")
    func neverKeepsNothing() async throws {
        // Given a util that keeps no decoded original
        let harness = try ImageUtilHarness(
            configuration: ImageUtil.Configuration(pipeline: .init(decodedOriginals: .never)))
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When the original is asked twice
        _ = try await harness.util.image(for: url)
        _ = try await harness.util.image(for: url)

        // Then each ask decoded the bytes
        #expect(harness.util.statistics.decodes == 2)
        #expect(harness.util.statistics.memoryHits == 0)
    }

    @Test("under .lru(.image) a variant is kept as its bitmap and never encoded")
    func memoryOnlyVariantIsNotEncoded() async throws {
        // Given a memory-only ask
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)

        // When a circle is made
        _ = try await harness.util.image(for: request, style: ImageUtilFixtures.circle, storageType: .lru(.image))

        // Then memory holds its bitmap with no bytes
        let variantKey = harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle)
        let entry = try #require(try Self.imagePartition(harness).entry(forKey: variantKey))
        #expect(entry.data.isEmpty)
        #expect(entry.memoryCost == 96 * 96 * 4)
        #expect(entry.metadata.contentType == nil)
    }
}
