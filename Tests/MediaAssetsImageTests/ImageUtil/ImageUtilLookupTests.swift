import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil lookup order: memory, stored variant, stored original, network")
struct ImageUtilLookupTests {
    @Test("a second ask is a memory hit with no decoding")
    func secondAskIsMemoryHit() async throws {
        // Given one styled ask already answered
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let first = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)

        // When the same style is asked again
        let second = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)

        // Then memory answers: no new decode, render or download
        let statistics = harness.util.statistics
        #expect(second == first)
        #expect(first.width == 96 && first.height == 96)
        #expect(statistics.memoryHits == 1)
        #expect(statistics.decodes == 1)
        #expect(statistics.processes == 1)
        #expect(statistics.networkFetches == 1)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("after trimMemory the stored variant is decoded: no render, no network")
    func storedVariantAfterTrim() async throws {
        // Given a rendered circle, then memory emptied
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let first = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)
        await harness.manager.trimMemory()

        // When
        let second = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)

        // Then the PNG variant decodes to the same pixels
        let statistics = harness.util.statistics
        #expect(second == first)
        #expect(statistics.storageHits == 1)
        #expect(statistics.decodes == 2)
        #expect(statistics.processes == 1)
        #expect(statistics.networkFetches == 1)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)

        // And the decoded image is kept in memory again
        let third = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)
        #expect(third == first)
        #expect(harness.util.statistics.memoryHits == 1)
    }

    @Test("a new manager on the same directory finds the stored variant")
    func storedVariantAfterReopen() async throws {
        // Given a circle rendered by one manager
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let first = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)

        // When a new manager asks
        let reopened = try await harness.reopened()
        let second = try await reopened.util.image(for: url, style: ImageUtilFixtures.circle)

        // Then it decodes the stored variant
        let statistics = reopened.util.statistics
        #expect(second == first)
        #expect(statistics.storageHits == 1)
        #expect(statistics.decodes == 1)
        #expect(statistics.processes == 0)
        #expect(statistics.networkFetches == 0)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test(
        "a second style: from the kept original with .always, from the stored original by default",
        arguments: [DecodedOriginalPolicy.always, .whenAskedUnprocessed])
    func secondStyle(policy: DecodedOriginalPolicy) async throws {
        // Given one style rendered by a util with this policy
        let harness = try ImageUtilHarness(
            configuration: ImageUtil.Configuration(pipeline: .init(decodedOriginals: policy)))
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        _ = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)

        // When another style of the same size is asked
        let rectangle = try await harness.util.image(for: url, style: ImageUtilFixtures.rectangle)

        // Then .always renders it from the decoded original in memory (no disk read, no second decode); the
        // default decodes the stored original again; neither downloads twice
        let statistics = harness.util.statistics
        let kept = policy == .always
        #expect(rectangle.width == 96 && rectangle.height == 96)
        #expect(statistics.storageHits == (kept ? 0 : 1))
        #expect(statistics.decodes == (kept ? 1 : 2))
        #expect(statistics.processes == 2)
        #expect(statistics.networkFetches == 1)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("after memory is trimmed, a second style is rendered from the stored original without network")
    func secondStyleFromStoredOriginal() async throws {
        // Given one style rendered, then memory trimmed
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        _ = try await harness.util.image(for: url, style: ImageUtilFixtures.circle)
        await harness.manager.trimMemory()

        // When another style is asked
        let rectangle = try await harness.util.image(for: url, style: ImageUtilFixtures.rectangle)

        // Then the stored original is decoded and styled
        let statistics = harness.util.statistics
        #expect(rectangle.width == 96 && rectangle.height == 96)
        #expect(statistics.storageHits == 1)
        #expect(statistics.decodes == 2)
        #expect(statistics.processes == 2)
        #expect(statistics.networkFetches == 1)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("variants are stored encoded under <key>@<style>@<format>: PNG with alpha for a circle, JPEG for a rectangle")
    func variantsAreStoredEncoded() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)

        // When both styles are rendered
        let circle = try await harness.util.image(for: request, style: ImageUtilFixtures.circle)
        let rectangle = try await harness.util.image(for: request, style: ImageUtilFixtures.rectangle)

        // Then the keys are the original's key plus the style's identifier and the variant format's
        let originalKey = harness.manager.cacheKey(for: request)
        let circleKey = harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle)
        #expect(circleKey == originalKey.variant("circle(96)@auto-q85"))
        let rectangleKey = harness.util.cacheKey(for: request, style: ImageUtilFixtures.rectangle)

        // And the disk holds the encoded variants (written behind the asks), which decode to the same size
        await harness.manager.waitForPendingWrites()
        let circleBytes = try #require(try await harness.manager.readData(forKey: circleKey, storageType: .disk))
        let circleHeader = try ImageDecoder.header(of: circleBytes)
        #expect(circleHeader.format == .png && circleHeader.hasAlpha)
        #expect(try ImageDecoder.decode(circleBytes) == circle)
        let rectangleBytes = try #require(try await harness.manager.readData(forKey: rectangleKey, storageType: .disk))
        let rectangleHeader = try ImageDecoder.header(of: rectangleBytes)
        #expect(rectangleHeader.format == .jpeg)
        let decodedRectangle = try ImageDecoder.decode(rectangleBytes)
        #expect(decodedRectangle.width == rectangle.width && decodedRectangle.height == rectangle.height)

        // And the original's bytes are on disk only, while memory keeps the decoded variants
        #expect(try await harness.manager.readData(forKey: originalKey, storageType: .disk) != nil)
        #expect(try await harness.manager.readData(forKey: originalKey, storageType: .lru(.image)) == nil)
        let memoryEntry = try await harness.manager.cachedEntry(forKey: circleKey, storageType: .lru(.image))
        #expect(memoryEntry?.decoded?.value as? Image == circle)
    }

    @Test("a new version in the request is a new download")
    func newVersionDownloadsAgain() async throws {
        // Given version 1 cached
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let circle = ImageUtilFixtures.circle
        let first = try await harness.util.image(for: AssetRequest(url: url, version: "1"), style: circle)

        // When the content changes and the request names version 2
        harness.origin.replace("/photo.jpg", data: try ImageUtilFixtures.transparentPNG())
        let second = try await harness.util.image(for: AssetRequest(url: url, version: "2"), style: circle)

        // Then it is downloaded and rendered anew
        #expect(second != first)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 2)
        #expect(harness.util.statistics.processes == 2)
    }

    @Test("the original style decodes once at full size and then answers from memory")
    func originalStyle() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When asked twice
        let first = try await harness.util.image(for: url)
        let second = try await harness.util.image(for: url)

        // Then
        #expect(first.width == 300 && first.height == 200)
        #expect(second == first)
        #expect(harness.util.statistics.decodes == 1)
        #expect(harness.util.statistics.processes == 0)
        #expect(harness.util.statistics.memoryHits == 1)
    }

    @Test("under .lru(.image) everything stays in memory and nothing reaches the disk")
    func memoryOnlyStorage() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)

        // When
        _ = try await harness.util.image(for: request, style: ImageUtilFixtures.circle, storageType: .lru(.image))
        _ = try await harness.util.image(for: request, style: ImageUtilFixtures.circle, storageType: .lru(.image))

        // Then
        let variantKey = harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle)
        let originalKey = harness.manager.cacheKey(for: request)
        #expect(try await harness.manager.readData(forKey: variantKey, storageType: .disk) == nil)
        #expect(try await harness.manager.readData(forKey: originalKey, storageType: .disk) == nil)
        #expect(try await harness.manager.readData(forKey: originalKey, storageType: .lru(.image)) != nil)
        #expect(harness.util.statistics.memoryHits == 1)
    }

    @Test("under .disk there is no memory: a second ask decodes the stored variant")
    func diskOnlyStorage() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When
        let first = try await harness.util.image(for: url, style: ImageUtilFixtures.circle, storageType: .disk)
        let second = try await harness.util.image(for: url, style: ImageUtilFixtures.circle, storageType: .disk)

        // Then
        #expect(second == first)
        #expect(harness.util.statistics.memoryHits == 0)
        #expect(harness.util.statistics.storageHits == 1)
        #expect(harness.util.statistics.processes == 1)
    }
}
