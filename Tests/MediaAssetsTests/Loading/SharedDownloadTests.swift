import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Shared downloads and prefetching")
struct SharedDownloadTests {
    static let storageTypes: [StorageType] = [.disk, .hybrid(.image), .lru(.image)]

    @Test func aPrefetchAndADisplayShareOneDownloadWhateverStorageEachNames() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        var combination = 0
        for prefetchStorage in Self.storageTypes {
            for displayStorage in Self.storageTypes {
                // Given a prefetch into one storage whose download is held at the origin
                combination += 1
                let path = "/shared/\(combination).jpg"
                let bytes = testBytes(count: 6_000, seed: UInt64(combination))
                let request = AssetRequest(url: environment.serve(path, bytes, behavior: .init(gated: true)))
                let prefetcher = Prefetcher(manager: manager, storageType: prefetchStorage)
                prefetcher.start([request])
                try await origin.waitForInFlight(path: path, count: 1)

                // When a display asks for the same URL through another (or the same) storage
                let joinsBefore = manager.fetchStatistics.joins
                let display = Task { try await manager.data(for: request, storageType: displayStorage) }
                try await waitUntil("the display joined") { manager.fetchStatistics.joins == joinsBefore + 1 }
                origin.release(path)

                // Then one download served both, and each storage that asked holds the bytes
                #expect(try await display.value == bytes)
                try await waitUntil("the prefetch finished") { prefetcher.statistics.completed == 1 }
                await manager.waitForPendingWrites()
                #expect(origin.requestCount(for: path) == 1, "\(prefetchStorage) then \(displayStorage)")
                let key = environment.key(path)
                #expect(try await manager.readData(forKey: key, storageType: prefetchStorage) == bytes)
                #expect(try await manager.readData(forKey: key, storageType: displayStorage) == bytes)
            }
        }
        #expect(origin.requestCount(for: "/shared/1.jpg") == 1)
    }

    @Test func thePrefetchLimitHoldsPerPrefetcherAcrossStartCalls() async throws {
        // Given six held resources started one `start` call at a time on a prefetcher of two
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let origin = environment.origin
        let paths = (0..<6).map { "/row/\($0).jpg" }
        let requests = paths.map {
            AssetRequest(url: environment.serve($0, testBytes(count: 2_000), behavior: .init(gated: true)))
        }
        let prefetcher = Prefetcher(manager: environment.manager, maxConcurrentRequests: 2)
        for request in requests { prefetcher.start([request]) }

        // Then two reach the origin and four wait in the prefetcher
        try await origin.waitForInFlight(path: paths[0], count: 1)
        try await origin.waitForInFlight(path: paths[1], count: 1)
        #expect(prefetcher.pendingCount == 6)
        for path in paths[2...] { #expect(origin.requestCount(for: path) == 0) }

        // When the origin answers, the rest follow two at a time
        for path in paths { origin.setBehavior(path, .normal) }
        try await waitUntil("all prefetched") { prefetcher.statistics.completed == 6 }
        #expect(origin.peakInFlight == 2)
        #expect(prefetcher.pendingCount == 0)
    }

    @Test func stoppingOneRequestLeavesTheOthers() async throws {
        // Given three held resources on a prefetcher of one: the first runs, two wait
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let origin = environment.origin
        let paths = ["/stop/a.jpg", "/stop/b.jpg", "/stop/c.jpg"]
        let requests = paths.map {
            AssetRequest(url: environment.serve($0, testBytes(count: 3_000), behavior: .init(stallAfterBodyBytes: 100)))
        }
        let prefetcher = Prefetcher(manager: environment.manager, maxConcurrentRequests: 1)
        prefetcher.start(requests)
        try await origin.waitForRequests(path: paths[0], count: 1)

        // When the running one and a waiting one are stopped
        prefetcher.stop([requests[1], requests[0]])

        // Then the running transfer is cancelled, the stopped waiter never starts, and the third runs
        try await origin.waitUntilClientClosed(path: paths[0])
        try await origin.waitForRequests(path: paths[2], count: 1)
        #expect(origin.requestCount(for: paths[1]) == 0)
        #expect(prefetcher.pendingCount == 1)
        prefetcher.cancel()
        try await origin.waitUntilClientClosed(path: paths[2])
        #expect(origin.requestCount(for: paths[1]) == 0)
        #expect(prefetcher.statistics.completed == 0)
        #expect(prefetcher.statistics.failed == 0)
    }
}
