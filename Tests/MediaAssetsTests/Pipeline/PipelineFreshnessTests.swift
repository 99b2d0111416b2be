import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Pipeline freshness: lookups inside flights, stale-while-revalidate, stale-if-error")
struct PipelineFreshnessTests {
    /// The freshness tests run over a memory backend and a byte backend, which must keep the stale dates.
    static let storageTypes: [StorageType] = [.lru(.image), .disk]

    @Test("a flight that completes between an ask's cache miss and its join causes no second request")
    func flightCompletingBetweenMissAndJoin() async throws {
        // Given a byte backend whose second read answers "miss" and is then held open
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/a.bin", testBytes(count: 4_096), behavior: .init(gated: true))
        let backend = GatedReadBackend(inner: try environment.manager.backend(for: .disk))
        environment.manager.register(backend, for: .custom("gated"))
        backend.arm(read: 2)
        let manager = environment.manager
        async let first = manager.data(for: AssetRequest(url: url), storageType: .custom("gated"))
        try await environment.origin.waitForInFlight(path: "/a.bin", count: 1)

        // When a second ask comes while the first download is under way, and that download finishes
        // before the second ask gets past its lookup
        async let second = manager.data(for: AssetRequest(url: url), storageType: .custom("gated"))
        // Declared after `second`, so it runs before the scope awaits it: a failed wait below must not
        // leave the second ask parked in the backend for good.
        defer { backend.open() }
        try await waitUntil("the second ask joined or missed") {
            manager.fetchStatistics.joins == 1 || backend.heldCount == 1
        }
        environment.origin.setBehavior("/a.bin", .normal)
        environment.origin.release("/a.bin")
        let firstData = try await first
        backend.open()
        let secondData = try await second

        // Then both have the bytes and the origin was asked once
        #expect(firstData == secondData)
        #expect(environment.origin.requestCount(for: "/a.bin") == 1)
    }

    @Test(
        "stale-while-revalidate: a stale entry at once, exactly one background request, then fresh",
        arguments: storageTypes
    )
    func staleWhileRevalidate(storageType: StorageType) async throws {
        // Given text cached with a minute of freshness and ten minutes of stale-while-revalidate
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let (pipeline, request) = environment.textFeed(cacheControl: "max-age=60, stale-while-revalidate=600")
        #expect(try await pipeline.value(for: request, options: .init(), storageType: storageType).source == .network)

        // When it has gone stale and is asked for twice while the origin holds the revalidation
        environment.origin.setBehavior("/feed.txt", .init(gated: true))
        clock.advance(by: 120)
        let first = try await pipeline.value(for: request, options: .init(), storageType: storageType)
        let second = try await pipeline.value(for: request, options: .init(), storageType: storageType)
        try await environment.origin.waitForInFlight(path: "/feed.txt", count: 1)
        environment.origin.setBehavior("/feed.txt", .normal)
        environment.origin.release("/feed.txt")

        // Then both got the stale text at once, one background revalidation ran, and the next ask is fresh
        #expect(first.source == .stale && first.value == "hello")
        #expect(second.source == .stale && second.value == "hello")
        try await waitUntil("the background revalidation was answered") {
            environment.origin.requestCount(for: "/feed.txt") == 2
        }
        try await waitUntil("the revalidated entry answers without going stale") {
            (try? await pipeline.value(for: request, options: .init(), storageType: storageType))?.source != .stale
        }
        #expect(environment.manager.fetchStatistics.backgroundRevalidations == 1)
        #expect(environment.origin.requestCount(for: "/feed.txt") == 2)
        let revalidation = environment.origin.requests(for: "/feed.txt")[1]
        #expect(revalidation.headers["if-none-match"] != nil)
    }

    @Test(
        "stale-if-error: with the origin failing, the stale entry is served and marked stale",
        arguments: storageTypes
    )
    func staleIfError(storageType: StorageType) async throws {
        // Given text cached with a minute of freshness and ten minutes of stale-if-error
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let (pipeline, request) = environment.textFeed(cacheControl: "max-age=60, stale-if-error=600")
        _ = try await pipeline.value(for: request, options: .init(), storageType: storageType)
        await environment.manager.waitForPendingWrites()

        // When it is stale and the origin answers 503 to every attempt
        clock.advance(by: 120)
        environment.origin.setBehavior("/feed.txt", .init(failNext: 100, failStatus: 503))
        let result = try await pipeline.value(for: request, options: .init(), storageType: storageType)

        // Then the stale text is served, marked stale; past the window the error reaches the caller
        #expect(result.source == .stale && result.value == "hello")
        clock.advance(by: 1_000)
        await #expect(throws: AssetsError.self) {
            _ = try await pipeline.value(for: request, options: .init(), storageType: storageType)
        }
    }

    @Test(
        "offline policy: staleIfError = .infinity serves what is cached when the origin is unreachable",
        arguments: storageTypes
    )
    func offlinePolicy(storageType: StorageType) async throws {
        // Given a manager that serves stale entries whenever the origin fails, and text cached without
        // any stale-if-error of its own
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock, staleIfError: .infinity)
        defer { environment.tearDown() }
        let (pipeline, request) = environment.textFeed(cacheControl: "max-age=60")
        _ = try await pipeline.value(for: request, options: .init(), storageType: storageType)
        await environment.manager.waitForPendingWrites()

        // When the origin is gone a year later
        clock.advance(by: 365 * 24 * 3_600)
        environment.origin.stop()
        let result = try await pipeline.value(
            for: request, options: .init(), storageType: storageType
        )

        // Then the cached text is served, marked stale
        #expect(result.source == .stale && result.value == "hello")
    }

    @Test(
        "a processed value: one process per variant, memory hits after, and bytes that do not decode are never stored")
    func processingAndRejection() async throws {
        // Given text and bytes that are not UTF-8
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let text = environment.serve("/a.txt", Data("hello".utf8))
        let binary = environment.serve("/b.bin", Data([0xFF, 0xFE, 0xC0]))
        let pipeline = AssetPipeline(manager: environment.manager, decoder: TextDecoder())

        // When the text is asked for upper-cased twice (memory partition) and the binary once
        let first = try await pipeline.value(
            for: AssetRequest(url: text), processor: Uppercased(), options: .init(), storageType: .hybrid(.image)
        )
        let second = try await pipeline.value(
            for: AssetRequest(url: text), processor: Uppercased(), options: .init(), storageType: .hybrid(.image)
        )
        await #expect(throws: AssetsError.self) {
            _ = try await pipeline.value(for: AssetRequest(url: binary), options: .init(), storageType: .lru(.image))
        }
        await environment.manager.waitForPendingWrites()

        // Then
        #expect(first.value == "HELLO" && first.source == .network && first.original == "hello")
        #expect(second.value == "HELLO" && second.source == .memory)
        #expect(pipeline.statistics.processes == 1 && pipeline.statistics.undecodable == 1)
        #expect(try await environment.isOnDisk("/a.txt"))
        #expect(try await !environment.isOnDisk("/b.bin"))
    }
}
