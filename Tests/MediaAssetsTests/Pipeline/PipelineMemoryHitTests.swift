import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

@Suite("Pipeline memory hits: what a hit reads")
struct PipelineMemoryHitTests {
    /// A clock that counts how often it is read.
    final class CountingClock: Sendable {
        private let state = Mutex((date: Date(timeIntervalSinceReferenceDate: 800_000_000), reads: 0))

        var now: @Sendable () -> Date {
            {
                self.state.withLock { state in
                    state.reads += 1
                    return state.date
                }
            }
        }
        var reads: Int { state.withLock { $0.reads } }
        func advance(by seconds: TimeInterval) { state.withLock { $0.date += seconds } }
    }

    private func makePipeline(
        cacheControl: String?, clock: CountingClock
    ) throws -> (AssetPipeline<TextDecoder>, AssetRequest) {
        let url = URL(string: "https://cdn.example.com/feed.txt")!
        let headers = cacheControl.map { ["Cache-Control": $0] } ?? [:]
        let loader = FixedResponseLoader(
            DataResponse(url: url, statusCode: 200, headers: headers, data: Data("hello".utf8)))
        var configuration = AssetsManager.Configuration(disk: nil, loader: loader)
        configuration.now = clock.now
        let manager = try AssetsManager(configuration: configuration)
        return (AssetPipeline(manager: manager, decoder: TextDecoder()), AssetRequest(url: url))
    }

    @Test func aHitOfAnEntryWithoutAFreshnessLifetimeReadsNoClock() async throws {
        // Given a processed value an app put in memory without a freshness lifetime
        let clock = CountingClock()
        let (pipeline, request) = try makePipeline(cacheControl: nil, clock: clock)
        let key = pipeline.manager.cacheKey(for: request).variant(Uppercased().identifier)
        let memory = try #require(pipeline.manager.decodedObjectCache(for: .lru(.image)))
        memory.insert(CacheEntry(data: Data(), decoded: DecodedObject("HELLO", cost: 5)), forKey: key)
        let readsBefore = clock.reads

        // When it is asked for ten times
        let hits = (0..<10).compactMap { _ in
            pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image))
        }

        // Then every ask is a memory hit, counted, and none read the clock
        #expect(hits.map(\.value) == Array(repeating: "HELLO", count: 10))
        #expect(hits.allSatisfy { $0.source == .memory })
        #expect(pipeline.statistics.memoryHits == 10)
        #expect(clock.reads == readsBefore)
    }

    @Test func aHitOfAFreshEntryReadsTheClockOnceAndAStaleOneMisses() async throws {
        // Given a value that is fresh for a minute
        let clock = CountingClock()
        let (pipeline, request) = try makePipeline(cacheControl: "max-age=60", clock: clock)
        _ = try await pipeline.value(for: request, processor: Uppercased(), options: .init(), storageType: .lru(.image))
        let readsBefore = clock.reads

        // When it is asked for once within the minute and once after it
        let fresh = pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image))
        let readsForOneHit = clock.reads - readsBefore
        clock.advance(by: 61)
        let stale = pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image))

        // Then the first is a hit that read the clock once, the second a miss; `.cacheOnly` still takes it
        #expect(fresh?.value == "HELLO")
        #expect(readsForOneHit == 1)
        #expect(stale == nil)
        var cacheOnly = request
        cacheOnly.cachePolicy = .cacheOnly
        #expect(
            pipeline.cachedValue(for: cacheOnly, processor: Uppercased(), storageType: .lru(.image))?.value == "HELLO")
        #expect(pipeline.statistics.memoryHits == 2)
    }

    @Test func aHitAfterTheMemoryBackendIsReplacedReadsTheNewBackend() async throws {
        // Given a value kept in the registered memory partition, and a hit that resolved its route
        let clock = CountingClock()
        let (pipeline, request) = try makePipeline(cacheControl: nil, clock: clock)
        _ = try await pipeline.value(for: request, processor: Uppercased(), options: .init(), storageType: .lru(.image))
        #expect(pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image)) != nil)

        // When another memory backend is registered for the partition
        let replacement = MemoryCache(limits: .init(costLimit: 1 << 20))
        pipeline.manager.register(replacement, for: .lru(.image))

        // Then the next ask reads the new backend (empty), and a value stored there is a hit
        #expect(pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image)) == nil)
        let key = pipeline.manager.cacheKey(for: request).variant(Uppercased().identifier)
        replacement.insert(CacheEntry(data: Data(), decoded: DecodedObject("REPLACED", cost: 8)), forKey: key)
        #expect(
            pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image))?.value == "REPLACED")
    }

    @Test func aValueOfAnotherTypeUnderTheKeyIsAMiss() async throws {
        // Given an entry under a variant's key whose decoded object is not the pipeline's value type
        let clock = CountingClock()
        let (pipeline, request) = try makePipeline(cacheControl: nil, clock: clock)
        let key = pipeline.manager.cacheKey(for: request).variant(Uppercased().identifier)
        let memory = try #require(pipeline.manager.decodedObjectCache(for: .lru(.image)))
        memory.insert(CacheEntry(data: Data(), decoded: DecodedObject(42, cost: 8)), forKey: key)

        // Then the pipeline does not take it for its own
        #expect(pipeline.cachedValue(for: request, processor: Uppercased(), storageType: .lru(.image)) == nil)
        #expect(pipeline.statistics.memoryHits == 0)
    }
}
