import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Prefetcher")
struct PrefetchTests {
    @Test func queuedRequestsStartInTheOrderTheyCame() async throws {
        // Given 64 resources and a prefetcher that runs one prefetch at a time
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let paths = (0..<64).map { "/ordered/\($0).bin" }
        let urls = paths.map { environment.serve($0, testBytes(count: 1_000)) }
        let prefetcher = Prefetcher(manager: environment.manager, maxConcurrentRequests: 1)

        // When each is queued by a start call of its own
        for url in urls { prefetcher.start([AssetRequest(url: url)]) }
        try await waitUntil("every prefetch done") { prefetcher.statistics.completed == 64 }

        // Then the origin saw them one by one in that order (tasks started per request would race for the slot)
        let starts = paths.map { environment.origin.requests(for: $0).first!.startTime }
        #expect(starts == starts.sorted())
        #expect(environment.origin.peakInFlight == 1)
    }

    @Test func neverExceedsItsConcurrencyBound() async throws {
        // Given 24 resources that each take a moment to answer
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        let paths = (0..<24).map { "/thumb/\($0).jpg" }
        for path in paths {
            origin.register(path, data: testBytes(count: 4_000), contentType: "image/jpeg")
            origin.setBehavior(path, .init(latency: .milliseconds(15)))
        }

        // When they are prefetched with a bound of 3
        let prefetcher = Prefetcher(manager: manager, maxConcurrentRequests: 3)
        await prefetcher.prefetch(paths.map { AssetRequest(url: origin.url(for: $0)) })

        // Then every one is cached, and the origin never saw more than 3 at once
        #expect(prefetcher.statistics.completed == 24)
        #expect(origin.peakInFlight <= 3)
        #expect(origin.peakInFlight >= 1)
        for path in paths {
            let key = manager.cacheKey(for: AssetRequest(url: origin.url(for: path)))
            #expect(try await manager.readData(forKey: key, storageType: .disk) != nil)
        }
    }

    @Test func sharesFetchesWithLiveRequestsAndCancels() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/shared.jpg", data: testBytes(count: 8_000), contentType: "image/jpeg")
        origin.setBehavior("/shared.jpg", .init(gated: true))
        let request = AssetRequest(url: origin.url(for: "/shared.jpg"))

        // A prefetch starts the fetch; a live request joins it
        let prefetcher = Prefetcher(manager: manager)
        prefetcher.start([request])
        try await origin.waitForInFlight(path: "/shared.jpg", count: 1)
        let live = Task { try await manager.data(for: request) }
        try await waitUntil("the live request joined") { manager.fetchStatistics.joins == 1 }

        // Cancelling the prefetch leaves the live request's fetch running
        prefetcher.cancel()
        origin.release("/shared.jpg")
        #expect(try await live.value.count == 8_000)
        #expect(origin.requestCount(for: "/shared.jpg") == 1)
    }
}
