import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

/// The statistics a user reads, against what the origin's own log says happened: every path counted where it
/// happened, once.
@Suite("Statistics describe every path")
struct ImageUtilStatisticsTests {
    @Test("warm encoded answers count as hits by where their bytes were, and say so in their source")
    func warmEncodedAnswersAreHitsBySource() async throws {
        // Given a circle made once as bytes, then a restart on the same cache
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/warm.jpg", try ImageUtilFixtures.gradientJPEG()))
        let style = ImageUtilFixtures.circle
        let made = try await harness.util.encodedImage(for: request, style: style)
        let (manager, util) = try await harness.reopened()

        // When it is asked for as bytes 100 times from `.disk`, then 100 times through `.hybrid(.image)`
        var fromDisk: [EncodedImage] = []
        for _ in 0..<100 {
            fromDisk.append(try await util.encodedImage(for: request, style: style, storageType: .disk))
        }
        var throughHybrid: [EncodedImage] = []
        for _ in 0..<100 { throughHybrid.append(try await util.encodedImage(for: request, style: style)) }

        // Then the origin was asked once, before the restart, and no answer after it decoded anything
        #expect(made.source == .network)
        #expect(harness.origin.requestCount(for: "/warm.jpg") == 1)
        #expect(manager.fetchStatistics.originRequests == 0)
        let statistics = util.statistics
        #expect(statistics.decodes == 0 && statistics.processes == 0 && statistics.networkFetches == 0)
        // And `.disk` read the file each time; `.hybrid` read it once, then the bytes it kept in memory
        #expect(fromDisk.allSatisfy { $0.source == .storage && $0.data == made.data })
        #expect(throughHybrid.first?.source == .storage)
        #expect(throughHybrid.dropFirst().allSatisfy { $0.source == .memory && $0.data == made.data })
        #expect(statistics.storageHits == 101)
        #expect(statistics.memoryHits == 99)
        #expect(statistics.encodedHits == 200)
        #expect(!fromDisk.contains(where: \.isJoined) && !throughHybrid.contains(where: \.isJoined))
        await manager.shutdown()
    }

    @Test("fetches the fetch policy refused are refusals, not origin requests")
    func refusalsAreNotOriginRequests() async throws {
        // Given a service's policy, which refuses loopback, and an origin on loopback
        let directory = try TemporaryDirectory("StatisticsRefusals")
        defer { directory.remove() }
        let origin = SampleOrigin()
        try origin.start()
        defer { origin.stop() }
        let manager = try AssetsManager.forTesting(directory: directory, fetchPolicy: .service)
        let util = ImageUtil(manager: manager)
        let paths = (0..<5).map { "/refused/\($0).jpg" }
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        for path in paths { origin.register(path, data: jpeg, contentType: "image/jpeg") }

        // When five images are asked for
        for path in paths {
            await #expect(throws: AssetsError.self) {
                _ = try await util.image(for: origin.url(for: path), style: ImageUtilFixtures.circle)
            }
        }

        // Then nothing reached the origin, and the statistics say so: five refusals, five failed fetches and asks
        #expect(origin.totalRequestCount == 0)
        let fetches = manager.fetchStatistics
        #expect(fetches.originRequests == 0)
        #expect(fetches.refusals == 5)
        #expect(fetches.failures == 5 && fetches.cancellations == 0)
        #expect(util.statistics.failures == 5 && util.statistics.networkFetches == 0)
        await manager.shutdown()
    }

    @Test("cancelled asks are cancellations, not failures; a real failure is a failure")
    func cancellationsAreNotFailures() async throws {
        // Given four images held at the origin, each asked for by a row
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let (origin, util, manager) = (harness.origin, harness.util, harness.manager)
        let paths = (0..<4).map { "/cancelled/\($0).jpg" }
        var rows: [Task<Image, Error>] = []
        for path in paths {
            let url = harness.serve(path, try ImageUtilFixtures.gradientJPEG())
            origin.setBehavior(path, .init(gated: true))
            rows.append(Task { try await util.image(for: url, style: ImageUtilFixtures.circle) })
            try await origin.waitForInFlight(path: path, count: 1)
        }

        // When every row is cancelled, then an image the origin does not have is asked for
        for row in rows { row.cancel() }
        for row in rows { await #expect(throws: CancellationError.self) { _ = try await row.value } }
        try await waitUntil("the four fetches ended") {
            manager.fetchStatistics.cancellations + manager.fetchStatistics.failures == 4
        }
        let missing = origin.url(for: "/missing.jpg")
        await #expect(throws: AssetsError.self) { _ = try await util.image(for: missing, style: .original) }

        // Then the cancellations are counted as such, and the one real failure as a failure
        for path in paths { #expect(origin.requestCount(for: path) == 1) }
        #expect(origin.requestCount(for: "/missing.jpg") == 1)
        let fetches = manager.fetchStatistics
        #expect(fetches.originRequests == 5)
        #expect(fetches.cancellations == 4 && fetches.failures == 1)
        #expect(util.statistics.cancellations == 4 && util.statistics.failures == 1)
        for path in paths { origin.release(path) }
    }

    @Test("an avatar render cancelled while it waits for a processing slot is a cancellation, not a failure")
    func cancelledAvatarRenderIsACancellation() async throws {
        // Given every processing slot of the manager held
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let limiter = harness.manager.runtime.processLimiter
        var releases: [AsyncStream<Void>.Continuation] = []
        var holders: [Task<Void, Error>] = []
        for _ in 0..<limiter.limit {
            let (held, release) = AsyncStream<Void>.makeStream()
            releases.append(release)
            holders.append(Task { try await limiter.run { for await _ in held {} } })
        }
        try await waitUntil("the slots are held") { limiter.peakConcurrency == limiter.limit }

        // When an avatar whose app holds its original waits to be styled, and is cancelled
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let avatar = TestAvatar(url: url, localOriginalImage: ProcessingFixtures.smooth(width: 200, height: 150))
        let ask = Task { try await harness.util.avatar(avatar) }
        try await waitUntil("the render waits for a slot") { limiter.waitingCount == 1 }
        ask.cancel()

        // Then it ends as a cancellation, counted as one
        await #expect(throws: CancellationError.self) { _ = try await ask.value }
        for release in releases { release.finish() }
        for holder in holders { try await holder.value }
        #expect(harness.util.statistics.cancellations == 1 && harness.util.statistics.failures == 0)
        #expect(harness.util.statistics.processes == 0)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 0)
    }

    @Test(
        "rows that join prefetches are joins in the fetch statistics and the util's alike",
        arguments: [ImagePrefetcher.Destination.styledImage, .originalBytes])
    func rowsJoiningPrefetchesAreCountedWhereAListAuthorLooks(_ destination: ImagePrefetcher.Destination)
        async throws
    {
        // Given three prefetches held at the origin
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let (origin, util, manager) = (harness.origin, harness.util, harness.manager)
        let style = ImageUtilFixtures.circle
        let paths = (0..<3).map { "/rows/\($0).jpg" }
        var requests: [AssetRequest] = []
        for path in paths {
            requests.append(AssetRequest(url: harness.serve(path, try ImageUtilFixtures.gradientJPEG())))
            origin.setBehavior(path, .init(gated: true))
        }
        let prefetcher = ImagePrefetcher(util: util, style: style, destination: destination)
        prefetcher.startPrefetching(with: requests)
        for path in paths { try await origin.waitForInFlight(path: path, count: 1) }

        // When a row asks for each, and the origin answers
        let rows = requests.map { request in Task { try await util.imageResult(for: request, style: style) } }
        try await waitUntil("the three rows joined") {
            max(util.statistics.joins, manager.fetchStatistics.joins) == 3
        }
        for path in paths { origin.release(path) }
        var results: [AssetResult<Image>] = []
        for row in rows { results.append(try await row.value) }
        try await waitUntil("prefetched") { prefetcher.statistics.completed == 3 }

        // Then one download served each prefetch and its row, and both views count the three joins
        for path in paths { #expect(origin.requestCount(for: path) == 1) }
        #expect(manager.fetchStatistics.originRequests == 3)
        #expect(manager.fetchStatistics.joins == 3)
        #expect(util.statistics.joins == 3)
        #expect(results.allSatisfy { $0.isJoined && $0.source == .network })
    }

    @Test("twenty cold asks that share one download: one started it, nineteen joined, all from the network")
    func concurrentColdAsksShareOneDownload() async throws {
        // Given an image held at the origin
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let (origin, util, manager) = (harness.origin, harness.util, harness.manager)
        let request = AssetRequest(url: harness.serve("/shared.jpg", try ImageUtilFixtures.gradientJPEG()))
        origin.setBehavior("/shared.jpg", .init(gated: true))

        // When twenty asks for its circle come at once
        let asks = (0..<20).map { _ in
            Task { try await util.imageResult(for: request, style: ImageUtilFixtures.circle) }
        }
        try await origin.waitForInFlight(path: "/shared.jpg", count: 1)
        try await waitUntil("nineteen asks joined") { util.statistics.joins == 19 }
        origin.release("/shared.jpg")
        var results: [AssetResult<Image>] = []
        for ask in asks { results.append(try await ask.value) }

        // Then the origin was asked once; every result's bytes came from the network, one ask started the work
        #expect(origin.requestCount(for: "/shared.jpg") == 1)
        #expect(results.allSatisfy { $0.source == .network })
        #expect(results.filter { !$0.isJoined }.count == 1)
        let statistics = util.statistics
        #expect(statistics.networkFetches == 1 && statistics.decodes == 1 && statistics.processes == 1)
        #expect(statistics.joins == 19)
        #expect(manager.fetchStatistics.originRequests == 1)
        #expect(manager.fetchStatistics.joins == 19)
    }

    @Test("a style rendered from a decoded original kept in memory is a memory hit, and says so in its source")
    func aStyleRenderedFromAKeptDecodeIsAMemoryHit() async throws {
        // Given a util that keeps every decoded original, and a photo shown once as a circle
        let harness = try ImageUtilHarness(configuration: .init(pipeline: .init(decodedOriginals: .always)))
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/kept.jpg", try ImageUtilFixtures.gradientJPEG()))
        let circle = try await harness.util.imageResult(for: request, style: ImageUtilFixtures.circle)

        // When it is asked for as a rectangle and a rounded rectangle, one after the other
        let rectangle = try await harness.util.imageResult(for: request, style: ImageUtilFixtures.rectangle)
        let rounded = try await harness.util.imageResult(for: request, style: ImageUtilFixtures.rounded)

        // Then both were rendered from the kept decode: from memory, each a memory hit, one decode in all
        #expect(circle.source == .network)
        #expect(rectangle.source == .memory && rounded.source == .memory)
        let statistics = harness.util.statistics
        #expect(statistics.decodes == 1 && statistics.processes == 3 && statistics.networkFetches == 1)
        #expect(statistics.memoryHits == 2)
        #expect(statistics.storageHits == 0 && statistics.joins == 0)
    }
}
