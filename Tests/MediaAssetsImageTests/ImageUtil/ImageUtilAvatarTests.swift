import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil avatars: Navi's Avatar protocol and setAvatar")
struct ImageUtilAvatarTests {
    @Test("the app's styled image is used without network")
    func localStyledImage() async throws {
        // Given an avatar whose app already stored the styled image
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let stored = Image(width: 96, height: 96, fill: .black)
        let avatar = TestAvatar(url: url, localStyledImage: stored)

        // When
        let image = try await harness.util.avatar(avatar)

        // Then
        #expect(image == stored)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 0)
        #expect(avatar.saves.all.isEmpty)
    }

    @Test("the app's original is styled without network")
    func localOriginalImage() async throws {
        // Given an avatar whose app stored only the original
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let original = ProcessingFixtures.smooth(width: 200, height: 150)
        let avatar = TestAvatar(url: url, localOriginalImage: original)

        // When
        let image = try await harness.util.avatar(avatar)

        // Then it is the circle of that original
        #expect(image == (try ImageUtilFixtures.circle.process(original)))
        #expect(harness.util.statistics.processes == 1)
        #expect(harness.util.statistics.networkFetches == 0)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 0)
    }

    @Test("after a fetch and render, save is called once; later asks come from memory")
    func saveAfterFetch() async throws {
        // Given an avatar with no local images
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let avatar = TestAvatar(url: url)

        // When asked twice
        let first = try await harness.util.avatar(avatar)
        let second = try await harness.util.avatar(avatar)

        // Then the app got the original and the styled image once
        let saves = avatar.saves.all
        #expect(saves.count == 1)
        #expect(saves.first?.styled == first)
        // The circle's centred square of the 300×200 photo: 2× headroom over 96×96 needs 192 px, which only
        // the full 8/8 scale gives, and only the region the circle keeps is decoded.
        #expect(saves.first?.original.width == 200 && saves.first?.original.height == 200)
        #expect(second == first)
        #expect(harness.util.statistics.memoryHits == 1)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 1)
    }

    @Test("setAvatar delivers the placeholder before returning, then the final image")
    func placeholderThenFinal() async throws {
        // Given a download held at the gate
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }

        // When
        let (placeholder, deliveries, binding) = try harness.setGatedAvatar()

        // Then the placeholder came synchronously
        #expect(deliveries.all == [placeholder])
        try await harness.origin.waitForInFlight(path: "/avatar.jpg", count: 1)
        harness.origin.release("/avatar.jpg")
        await binding.wait()
        let delivered = deliveries.all
        #expect(delivered.count == 2)
        #expect(delivered.last?.width == 96 && delivered.last != placeholder)
    }

    @Test("setAvatar delivers a memory hit before returning, without the placeholder")
    func memoryHitIsSynchronous() async throws {
        // Given the avatar already in memory
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let avatar = TestAvatar(url: url, placeholderImage: Image(width: 96, height: 96, fill: .white))
        let styled = try await harness.util.avatar(avatar)
        let deliveries = Recorder<Image>()

        // When
        let binding = harness.util.setAvatar(avatar) { deliveries.append($0) }

        // Then
        #expect(deliveries.all == [styled])
        await binding.wait()
        #expect(deliveries.all == [styled])
    }

    @Test("cancelling the binding stops delivery and the download nobody else needs")
    func cancelStopsDelivery() async throws {
        // Given a delivery waiting on a gated download
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let (placeholder, deliveries, binding) = try harness.setGatedAvatar()
        try await harness.origin.waitForInFlight(path: "/avatar.jpg", count: 1)

        // When
        binding.cancel()
        await binding.wait()

        // Then only the placeholder arrived, the render and decode were abandoned, and nothing counts as a failure
        let util = harness.util
        try await waitUntil("the render and the decode ended") {
            util.pipeline.inFlightCount == 0
        }
        #expect(binding.isCancelled)
        #expect(deliveries.all == [placeholder])
        #expect(harness.util.statistics.failures == 0)
        #expect(harness.util.statistics.processes == 0)
    }
}

extension ImageUtilHarness {
    /// Serves the gradient photo at `/avatar.jpg` held at the origin's gate, and calls `setAvatar` for it with a
    /// white placeholder; returns the placeholder, the recorder of every delivery and the binding.
    func setGatedAvatar() throws -> (placeholder: Image, deliveries: Recorder<Image>, binding: AvatarBinding) {
        let url = serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        origin.setBehavior("/avatar.jpg", SampleOrigin.Behavior(gated: true))
        let placeholder = Image(width: 96, height: 96, fill: .white)
        let deliveries = Recorder<Image>()
        let avatar = TestAvatar(url: url, placeholderImage: placeholder)
        let binding = util.setAvatar(avatar) { deliveries.append($0) }
        return (placeholder, deliveries, binding)
    }
}
