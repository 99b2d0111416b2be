import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil placeholders")
struct ImageUtilPlaceholderTests {
    @Test("a download leaves a ThumbHash placeholder that a new util reads without decoding the original")
    func placeholderAfterFirstDownload() async throws {
        // Given a photo asked for once in a style
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let photo = ProcessingFixtures.smooth(width: 300, height: 200)
        let url = harness.serve("/photo.jpg", try ImageEncoder.jpeg(photo, quality: 90))
        let request = AssetRequest(url: url)
        #expect(try await harness.util.placeholder(for: request) == nil)
        _ = try await harness.util.image(for: request, style: .circle(diameter: 96))

        // When its placeholder has been made and the cache is reopened
        try await waitUntil("the placeholder was stored") { (try? await harness.util.placeholder(for: request)) != nil }
        await harness.manager.waitForPendingWrites()
        let (_, reopened) = try await harness.reopened()
        let placeholder = try #require(try await reopened.placeholder(for: request))

        // Then it is a small picture in the photo's proportions and colour, read with no decode or request
        let picture = placeholder.image()
        #expect(picture.width <= 32 && picture.height <= 32 && picture.width > picture.height)
        let expected = ImagePlaceholder.averageColor(of: photo)
        #expect(abs(Int(placeholder.averageColor.red) - Int(expected.red)) <= 8)
        #expect(abs(Int(placeholder.averageColor.green) - Int(expected.green)) <= 8)
        #expect(reopened.statistics.decodes == 0)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }
}
