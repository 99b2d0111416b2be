import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil coalescing: one download, one decode, one render per style")
struct ImageUtilCoalescingTests {
    @Test("5 concurrent asks in each of 3 styles make 1 origin request, 1 decode and 3 renders")
    func concurrentAsksShareWork() async throws {
        // Given an origin that holds the download until every ask has joined
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        harness.origin.setBehavior("/photo.jpg", SampleOrigin.Behavior(gated: true))
        let styles = [ImageUtilFixtures.circle, ImageUtilFixtures.rectangle, ImageUtilFixtures.rounded]
        let util = harness.util

        // When 15 asks overlap
        let results = try await withThrowingTaskGroup(of: (String, Image).self) { group in
            for style in styles {
                for _ in 0..<5 {
                    group.addTask { (style.identifier, try await util.image(for: url, style: style)) }
                }
            }
            try await harness.origin.waitForInFlight(path: "/photo.jpg", count: 1)
            // 12 joins on the three renders, 2 on the one decode.
            try await waitUntil("every ask joined a render or the decode") { util.statistics.joins == 14 }
            harness.origin.release("/photo.jpg")
            var results: [(String, Image)] = []
            for try await result in group { results.append(result) }
            return results
        }

        // Then
        let statistics = util.statistics
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
        #expect(statistics.networkFetches == 1)
        #expect(statistics.decodes == 1)
        #expect(statistics.processes == 3)
        #expect(results.count == 15)
        for style in styles {
            let images = results.filter { $0.0 == style.identifier }.map(\.1)
            #expect(images.count == 5)
            #expect(Set(images).count == 1, "\(style.identifier) asks got different images")
            #expect(images.first?.width == 96 && images.first?.height == 96)
        }
    }

    @Test("a smaller style joins a larger decode of the same original under way")
    func smallerStyleJoinsLargerDecode() async throws {
        // Given a 96-pixel circle waiting on a gated download
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        harness.origin.setBehavior("/photo.jpg", SampleOrigin.Behavior(gated: true))
        let util = harness.util
        async let large = util.image(for: url, style: ImageUtilFixtures.circle)
        try await harness.origin.waitForInFlight(path: "/photo.jpg", count: 1)

        // When a 40-pixel circle is asked meanwhile
        async let small = util.image(for: url, style: .circle(diameter: 40))
        try await waitUntil("the small circle joined the decode") { util.statistics.joins == 1 }
        harness.origin.release("/photo.jpg")
        let (largeImage, smallImage) = try await (large, small)

        // Then one decode served both renders
        #expect(largeImage.width == 96 && smallImage.width == 40)
        #expect(util.statistics.decodes == 1)
        #expect(util.statistics.processes == 2)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("decode options: full size covers all; a region at a size covers that region at no larger sizes")
    func decodeSizeCoverage() {
        // Given the image decoder and options of whole images and of centred squares
        let decoder = ImageAssetDecoder()
        typealias Options = ImageAssetDecoder.Options
        let square = ImageRegion.centered(aspectRatio: .square(1))
        let wide = ImageRegion.centered(aspectRatio: PixelSize(width: 16, height: 9))

        // When / Then
        #expect(decoder.options(.fullSize, satisfy: Options(targetSize: .square(96))))
        #expect(decoder.options(.fullSize, satisfy: Options(targetSize: .square(96), regionOfInterest: square)))
        #expect(decoder.options(.fullSize, satisfy: .fullSize))
        #expect(!decoder.options(Options(targetSize: .square(96)), satisfy: .fullSize))
        #expect(
            decoder.options(
                Options(targetSize: .square(96)), satisfy: Options(targetSize: PixelSize(width: 96, height: 40))))
        #expect(
            !decoder.options(
                Options(targetSize: PixelSize(width: 96, height: 40)), satisfy: Options(targetSize: .square(96))))
        #expect(
            decoder.options(
                Options(targetSize: .square(96), regionOfInterest: square),
                satisfy: Options(targetSize: .square(40), regionOfInterest: square)))
        #expect(
            decoder.options(
                Options(targetSize: nil, regionOfInterest: square),
                satisfy: Options(targetSize: .square(400), regionOfInterest: square)))
        // A region never answers another region, nor the whole image at a size (its part of it is unknown)
        #expect(
            !decoder.options(
                Options(targetSize: .square(96), regionOfInterest: square),
                satisfy: Options(targetSize: .square(40), regionOfInterest: wide)))
        #expect(
            !decoder.options(
                Options(targetSize: .square(400)), satisfy: Options(targetSize: .square(40), regionOfInterest: square)))
        #expect(
            !decoder.options(
                Options(targetSize: .square(400), regionOfInterest: square), satisfy: Options(targetSize: .square(40))))
    }

    @Test("48 unsynchronised asks over 3 URLs and 2 styles: one download per URL, one render per variant")
    func hammer() async throws {
        // Given three photos
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        let urls = (0..<3).map { harness.serve("/photo-\($0).jpg", jpeg) }
        let styles = [ImageUtilFixtures.circle, AvatarStyle.rectangle(size: PixelSize(width: 64, height: 48))]
        let util = harness.util

        // When every ask starts at once, with no gate
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                for url in urls {
                    for style in styles {
                        group.addTask { _ = try await util.image(for: url, style: style) }
                    }
                }
            }
            try await group.waitForAll()
        }

        // Then the origin saw one request per URL and each variant was rendered once
        for index in 0..<3 {
            #expect(harness.origin.requestCount(for: "/photo-\(index).jpg") == 1)
        }
        #expect(util.statistics.processes == 6)
        #expect(util.statistics.failures == 0)
        #expect(util.pipeline.inFlightCount == 0)
    }

    @Test("a failure reaches every coalesced ask")
    func failureReachesEveryAsk() async throws {
        // Given an unknown path held at the gate
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.origin.url(for: "/missing.jpg")
        harness.origin.setBehavior("/missing.jpg", SampleOrigin.Behavior(gated: true))
        let util = harness.util

        // When three asks share the fetch
        let failures = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do {
                        _ = try await util.image(for: url, style: ImageUtilFixtures.circle)
                        return false
                    } catch AssetsError.httpStatus(code: 404, _) {
                        return true
                    }
                }
            }
            try await harness.origin.waitForInFlight(path: "/missing.jpg", count: 1)
            try await waitUntil("every ask joined the render") { util.statistics.joins == 2 }
            harness.origin.release("/missing.jpg")
            var failures: [Bool] = []
            for try await failed in group { failures.append(failed) }
            return failures
        }

        // Then every ask saw the 404
        #expect(failures == [true, true, true])
        #expect(util.statistics.failures == 3)
        #expect(harness.origin.requestCount(for: "/missing.jpg") == 1)
    }
}
