import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("AnimationUtil: image assets")
struct AnimationAssetTests {
    @Test func sharedImagesAreFetchedAndDecodedOnceAcrossAnimations() async throws {
        // Given two animations with three external images each, one of them shared (and gated, so both wait on it)
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        for (path, red) in [("a", 10), ("b", 20), ("c", 30), ("shared", 40)] {
            environment.servePNG("/anim/images/\(path).png", red: UInt8(red), gated: path == "shared")
        }
        let first = environment.serveAnimation(
            "/anim/first.json", [.external("a", "a.png"), .external("b", "b.png"), .external("s", "shared.png")]
        )
        let second = environment.serveAnimation(
            "/anim/second.json", [.external("s", "shared.png"), .external("c", "c.png")]
        )

        // When both load at once
        async let loadedFirst = environment.util.loadedAnimation(for: first)
        async let loadedSecond = environment.util.loadedAnimation(for: second)
        try await environment.origin.waitForInFlight(path: "/anim/images/shared.png", count: 1)
        try await waitUntil("the second animation joined the shared image's decode") {
            environment.images.statistics.joins == 1
        }
        environment.origin.release("/anim/images/shared.png")
        let (one, two) = try await (loadedFirst, loadedSecond)

        // Then one request and one decode per image, and each animation has its images in document order
        for path in ["a", "b", "c", "shared"] {
            #expect(environment.origin.requestCount(for: "/anim/images/\(path).png") == 1)
        }
        #expect(environment.images.statistics.decodes == 4)
        #expect(one.images.map(\.assetID) == ["a", "b", "s"])
        #expect(two.images.map(\.assetID) == ["s", "c"])
        #expect(one.image(forAssetID: "s") == two.image(forAssetID: "s"))
        #expect(one.image(forAssetID: "a")?[0, 0].red == 10)
        #expect(one.images.first?.url == environment.origin.url(for: "/anim/images/a.png"))
        #expect(environment.util.statistics.processes == 2)
        #expect(one.images.count + two.images.count == 5)
    }

    @Test func embeddedDataURLImagesAreDecodedWithoutRequests() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.serveAnimation(
            "/embedded.json", [.embedded("inline", AssetFixtures.png(width: 3, height: 2, red: 77))]
        )

        let loaded = try await environment.util.loadedAnimation(for: url)

        #expect(loaded.images.map(\.origin) == [.embedded])
        #expect(loaded.image(forAssetID: "inline")?.width == 3)
        #expect(loaded.image(forAssetID: "inline")?[1, 1].red == 77)
        #expect(environment.origin.totalRequestCount == 1)
    }

    @Test func memoryCostCoversTheModelAndItsImagesAndAHitDoesNoWork() async throws {
        // Given an animation with two external images
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        environment.servePNG("/m/images/one.png")
        environment.servePNG("/m/images/two.png")
        let url = environment.serveAnimation("/m/anim.json", [.external("1", "one.png"), .external("2", "two.png")])

        // When it is loaded, then asked again
        let loaded = try await environment.util.loadedAnimation(for: url)
        let requests = environment.origin.totalRequestCount
        let again = try await environment.util.loadedAnimation(for: url)

        // Then the lottie partition is charged the model plus both bitmaps, once
        let memory = await environment.manager.statistics()[.lru(.lottie)]
        let pixels = loaded.images.reduce(0) { $0 + $1.image.cost }
        #expect(pixels == 2 * 8 * 6 * 4)
        #expect(loaded.estimatedMemoryCost == loaded.animation.estimatedMemoryCost + pixels)
        #expect(memory?.cost == loaded.estimatedMemoryCost)
        #expect(memory?.count == 1)
        // And the second ask was answered from memory
        #expect(again.animation == loaded.animation)
        #expect(environment.origin.totalRequestCount == requests)
        #expect(environment.util.statistics.processes == 1)
        #expect(environment.util.statistics.decodes == 1)
        #expect(environment.util.cachedLoadedAnimation(for: AssetRequest(url: url)) != nil)
    }

    @Test func aMissingImageIsATypedErrorNamingTheAssetAndURL() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        environment.servePNG("/x/images/here.png")
        let url = environment.serveAnimation(
            "/x/anim.json", [.external("here", "here.png"), .external("gone", "gone.png")]
        )

        await #expect(
            throws: AnimationAssetError.missing(
                assetID: "gone", url: environment.origin.url(for: "/x/images/gone.png"), status: 404
            )
        ) {
            try await environment.util.loadedAnimation(for: url)
        }
        #expect(environment.util.cachedLoadedAnimation(for: AssetRequest(url: url)) == nil)
    }

    @Test func anUndecodableImageIsATypedErrorWithTheCodecsReason() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        environment.base.serve("/u/images/bad.png", Data("not an image".utf8), contentType: "image/png")
        let url = environment.serveAnimation("/u/anim.json", [.external("bad", "bad.png")])

        do {
            _ = try await environment.util.loadedAnimation(for: url)
            Issue.record("an undecodable asset must fail the load")
        } catch let error as AnimationAssetError {
            guard case let .undecodable(assetID, assetURL, reason) = error else {
                Issue.record("expected undecodable, got \(error)")
                return
            }
            #expect(assetID == "bad")
            #expect(assetURL == environment.origin.url(for: "/u/images/bad.png"))
            #expect(reason == .unknownFormat(byteCount: 12, leadingBytes: Array("not an i".utf8)))
            #expect(error.description.contains("\"bad\""))
        }
    }

    @Test func aBrokenDataURLIsATypedError() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        var broken = AssetFixtures.ImageAsset.embedded("inline", Data())
        broken.path = "data:image/png;base64"
        let url = environment.serveAnimation("/broken.json", [broken])

        await #expect(throws: AnimationAssetError.invalidDataURL(assetID: "inline")) {
            try await environment.util.loadedAnimation(for: url)
        }
    }

    @Test func placeholdersStandInForFailedAssetsWhenAsked() async throws {
        // Given one good image, one missing and one undecodable
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        environment.servePNG("/p/images/good.png")
        environment.base.serve("/p/images/bad.png", Data([0x89, 0x50, 0x4E, 0x47]), contentType: "image/png")
        var large = AssetFixtures.ImageAsset.external("gone", "gone.png")
        large.width = 4000
        large.height = 30
        let url = environment.serveAnimation(
            "/p/anim.json", [.external("good", "good.png"), large, .external("bad", "bad.png")]
        )

        // When loaded with placeholders
        let options = AnimationAssetOptions(failurePolicy: .placeholder(maximumSide: 256))
        let loaded = try await environment.util.loadedAnimation(for: url, options: options)

        // Then the failures are reported in order and the placeholders are transparent, clamped sizes
        #expect(loaded.failures.map(\.assetID) == ["gone", "bad"])
        #expect(
            loaded.images.map(\.origin) == [
                .external(environment.origin.url(for: "/p/images/good.png")), .placeholder, .placeholder,
            ])
        let placeholder = try #require(loaded.image(forAssetID: "gone"))
        #expect(placeholder.width == 256 && placeholder.height == 30)
        #expect(placeholder[0, 0] == .transparent)
        #expect(loaded.failures.count == 2)
    }
}
