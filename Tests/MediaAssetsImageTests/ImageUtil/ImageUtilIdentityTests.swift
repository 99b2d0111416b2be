import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil: where images are kept, and which style is the original")
struct ImageUtilIdentityTests {
    @Test("a style of the user's named original is a variant like any other, never the decoded original")
    func aStyleNamedOriginalIsAVariant() async throws {
        // Given a style of the user's that shrinks to 16 px and is named "original"
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        let style = AvatarStyle(
            identifier: "original", targetSize: .square(16), processors: [ImageProcessors.Resize.exactFill(.square(16))]
        )

        // When it is asked for, and so is the real original
        let styled = try await harness.util.image(for: url, style: style)
        let original = try await harness.util.image(for: url)

        // Then the style ran and keyed a variant; the original is whole, under the original's key
        #expect(style != .original && style.isOriginal == false && AvatarStyle.original.isOriginal)
        #expect(styled.width == 16 && styled.height == 16)
        #expect(original.width > 16)
        #expect(harness.util.cacheKey(for: request, style: style) != harness.manager.cacheKey(for: request))
        #expect(
            harness.util.cacheKey(for: request, style: AvatarStyle.original) == harness.manager.cacheKey(for: request))
    }

    @Test("styles are equal only when their identifiers, sizes and processors are")
    func styleEquality() {
        let circle = AvatarStyle.circle(diameter: 96)
        let sameName = AvatarStyle(identifier: circle.identifier, targetSize: .square(48), processors: [])
        #expect(circle == AvatarStyle.circle(diameter: 96))
        #expect(circle != sameName)
    }

    @Test("every call keeps images where the util's configuration says, unless the call names another storage type")
    func configuredStorageTypeAndOverride() async throws {
        // Given a util that keeps its images in memory only
        let harness = try ImageUtilHarness(configuration: .init(storageType: .lru(.image)))
        defer { harness.tearDown() }
        let url = harness.serve("/memory.jpg", try ImageUtilFixtures.gradientJPEG())
        let other = harness.serve("/disk.jpg", try ImageUtilFixtures.gradientJPEG())

        // When one image is asked for with the default and another names .disk
        _ = try await harness.util.image(for: url, style: .circle(diameter: 32))
        _ = try await harness.util.encodedImage(for: other, style: .circle(diameter: 32), storageType: .disk)
        await harness.manager.waitForPendingWrites()

        // Then the first is in the memory partition only, the second on disk only
        let memoryKey = harness.util.cacheKey(for: AssetRequest(url: url), style: .circle(diameter: 32))
        let diskKey = harness.util.cacheKey(for: AssetRequest(url: other), style: .circle(diameter: 32))
        #expect(try await harness.manager.readData(forKey: memoryKey, storageType: .disk) == nil)
        #expect(harness.util.cachedImage(for: AssetRequest(url: url), style: .circle(diameter: 32)) != nil)
        #expect(try await harness.manager.readData(forKey: diskKey, storageType: .disk) != nil)
        #expect(try await harness.manager.readData(forKey: diskKey, storageType: .lru(.image)) == nil)
    }
}
