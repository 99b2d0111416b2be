import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    static let storageTypes: [StorageType] = [.disk, .hybrid(.image), .lru(.image)]

    @Test func aPrefetchAndARowShareOneDownloadUnderEveryStorageCombination() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let (origin, util) = (harness.origin, harness.util)
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        let style = ImageUtilFixtures.circle
        var combination = 0
        for prefetchStorage in Self.storageTypes {
            for displayStorage in Self.storageTypes {
                // Given a prefetch of the styled image whose download is held at the origin
                combination += 1
                let path = "/rows/\(combination).jpg"
                let url = harness.serve(path, jpeg)
                origin.setBehavior(path, .init(gated: true))
                let prefetcher = ImagePrefetcher(util: util, style: style, storageType: prefetchStorage)
                prefetcher.startPrefetching(with: [url])
                try await origin.waitForInFlight(path: path, count: 1)

                // When the row asks for it through its own storage
                let joinsBefore = harness.manager.fetchStatistics.joins
                let row = Task { try await util.image(for: url, style: style, storageType: displayStorage) }
                try await waitUntil("the row joined") { harness.manager.fetchStatistics.joins == joinsBefore + 1 }
                #expect(util.statistics.joins == harness.manager.fetchStatistics.joins)
                origin.release(path)

                // Then one download served both
                let image = try await row.value
                #expect(image.width == 96)
                try await waitUntil("prefetched") { prefetcher.statistics.completed == 1 }
                #expect(origin.requestCount(for: path) == 1, "\(prefetchStorage) then \(displayStorage)")
            }
        }
    }

    @Test func aPrefetchedRowIsAMemoryHit() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let urls = (0..<3).map { harness.serve("/hit/\($0).jpg", try! ImageUtilFixtures.gradientJPEG()) }
        let style = ImageUtilFixtures.rounded
        let prefetcher = ImagePrefetcher(util: harness.util, style: style)

        await prefetcher.prefetch(urls.map { AssetRequest(url: $0) })
        let decodes = harness.util.statistics.decodes
        for url in urls {
            let result = try await harness.util.imageResult(for: AssetRequest(url: url), style: style)
            #expect(result.source == .memory)
        }

        #expect(prefetcher.statistics.completed == 3)
        #expect(harness.util.statistics.decodes == decodes)
        #expect(decodes == 3)
        for index in 0..<3 { #expect(harness.origin.requestCount(for: "/hit/\(index).jpg") == 1) }
    }

    @Test func originalBytesArePrefetchedIntoTheStorageTheRowReads() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/bytes.jpg", try ImageUtilFixtures.gradientJPEG())
        let prefetcher = ImagePrefetcher(
            util: harness.util, style: ImageUtilFixtures.circle, destination: .originalBytes)

        await prefetcher.prefetch([AssetRequest(url: url)])
        await harness.manager.waitForPendingWrites()
        #expect(harness.util.statistics.decodes == 0)
        let result = try await harness.util.imageResult(for: AssetRequest(url: url), style: ImageUtilFixtures.circle)

        #expect(result.source == .storage)
        #expect(harness.origin.requestCount(for: "/bytes.jpg") == 1)
        #expect(harness.util.statistics.decodes == 1)
    }

    @Test func theLimitHoldsPerPrefetcherWhenRowsStartOneByOne() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        let paths = (0..<5).map { "/limit/\($0).jpg" }
        let urls = paths.map { harness.serve($0, jpeg) }
        for path in paths { harness.origin.setBehavior(path, .init(gated: true)) }
        let prefetcher = ImagePrefetcher(util: harness.util, style: ImageUtilFixtures.circle, maxConcurrentRequests: 2)

        for url in urls { prefetcher.startPrefetching(with: [url]) }
        try await harness.origin.waitForInFlight(path: paths[0], count: 1)
        try await harness.origin.waitForInFlight(path: paths[1], count: 1)
        for path in paths[2...] { #expect(harness.origin.requestCount(for: path) == 0) }
        for path in paths { harness.origin.setBehavior(path, .normal) }
        try await waitUntil("all prefetched") { prefetcher.statistics.completed == 5 }

        #expect(harness.origin.peakInFlight == 2)
    }

    @Test func stopAllStopsOnlyThisPrefetchersWork() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        let mine = harness.serve("/mine.jpg", jpeg)
        let theirs = harness.serve("/theirs.jpg", jpeg)
        harness.origin.setBehavior("/mine.jpg", .init(stallAfterBodyBytes: 100))
        harness.origin.setBehavior("/theirs.jpg", .init(gated: true))
        let first = ImagePrefetcher(util: harness.util, style: ImageUtilFixtures.circle)
        let second = ImagePrefetcher(util: harness.util, style: ImageUtilFixtures.circle)
        first.startPrefetching(with: [mine])
        second.startPrefetching(with: [theirs])
        try await harness.origin.waitForRequests(path: "/mine.jpg", count: 1)
        try await harness.origin.waitForInFlight(path: "/theirs.jpg", count: 1)

        first.stopPrefetching()

        try await harness.origin.waitUntilClientClosed(path: "/mine.jpg")
        harness.origin.release("/theirs.jpg")
        try await waitUntil("the other prefetcher finished") { second.statistics.completed == 1 }
        #expect(first.statistics.completed == 0)
        #expect(first.pendingCount == 0)
    }
}
