import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

/// A reader that learns of a resource while its probe is still storing the resource's record finds the probe's
/// chunk 0 under way and joins it: chunk 0 is asked of the origin once (a feed's preloader and its player meet
/// here, asking for the same new item at once).
@Suite("Probe and readers")
struct VideoProbeRaceTests {
    /// A memory backend whose writes of chunk records (`#meta`) wait at a gate.
    final class GatedRecords: CacheBackend {
        let inner: any CacheBackend = MemoryCache(limits: .init(costLimit: 64 << 20, countLimit: 10_000))
        let gate = AsyncGate()
        let waiting = SharedCount()

        func entry(forKey key: CacheKey) async throws -> CacheEntry? { try await inner.entry(forKey: key) }
        func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
            if key.description.hasSuffix("#meta") {
                waiting.add()
                await gate.wait()
            }
            try await inner.store(entry, forKey: key)
        }
        func removeEntry(forKey key: CacheKey) async throws { try await inner.removeEntry(forKey: key) }
        func removeAll() async throws { try await inner.removeAll() }
        func statistics() async -> CacheStatistics { await inner.statistics() }
        func pin(_ pin: Pin) async throws { try await inner.pin(pin) }
        func unpin(_ pin: Pin) async throws { try await inner.unpin(pin) }
        func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
            inner.storedKeys(batchSize: batchSize)
        }
    }

    @Test func aReaderArrivingWhileTheProbeStoresTheRecordJoinsItsFirstChunk() async throws {
        // Given a util over a backend whose record writes wait at a gate
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let data = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let url = environment.serve("/movie.mp4", data, contentType: "video/mp4")
        let backend = GatedRecords()
        environment.manager.register(backend, for: .custom("gated"))
        let video = VideoUtil(
            manager: environment.manager, configuration: .init(chunkSize: 64 << 10, storageType: .custom("gated")))

        // When a first reader probes the resource and its record write waits
        let first = Task { try await video.data(for: url, range: 0..<(64 << 10)) }
        try await waitUntil("the probe stores its record") { backend.waiting.value == 1 }
        // And a second reader asks for the same chunk meanwhile
        let secondDone = SharedCount()
        let second = Task {
            defer { secondDone.add() }
            return try await video.data(for: url, range: 0..<(64 << 10))
        }
        try await waitUntil("the second reader joins chunk 0, reads it, or asks for it again") {
            video.statistics.fetchesJoined >= 1 || secondDone.value == 1
                || environment.origin.requestCount(for: "/movie.mp4") >= 2
        }
        await backend.gate.open()

        // Then both read the origin's bytes, and chunk 0 was asked once
        #expect(try await first.value == data.prefix(64 << 10))
        #expect(try await second.value == data.prefix(64 << 10))
        #expect(environment.origin.requestCount(for: "/movie.mp4") == 1)
    }
}
