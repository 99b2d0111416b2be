import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Request pool over real HTTP")
struct CoalescingTests {
    @Test func thousandAsksForTenURLsMakeTenOriginRequests() async throws {
        // Given ten gated resources, so every ask arrives before any fetch completes
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        let paths = (0..<10).map { "/avatar/\($0).jpg" }
        for (index, path) in paths.enumerated() {
            origin.register(
                path, data: testBytes(count: 20_000 + index, seed: UInt64(index)), contentType: "image/jpeg")
            origin.setBehavior(path, .init(gated: true))
        }

        // When 1,000 tasks ask for them at once
        let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for ask in 0..<1_000 {
                let index = ask % 10
                group.addTask {
                    (index, try await manager.data(for: AssetRequest(url: origin.url(for: paths[index]))))
                }
            }
            try await waitUntil("990 asks joined the 10 fetches") { manager.fetchStatistics.joins == 990 }
            for path in paths {
                try await origin.waitForInFlight(path: path, count: 1)
                origin.release(path)
            }
            return try await group.reduce(into: [(Int, Data)]()) { $0.append($1) }
        }

        // Then the origin saw exactly one request per URL and every asker got the right bytes
        #expect(results.count == 1_000)
        for (index, data) in results {
            #expect(data == testBytes(count: 20_000 + index, seed: UInt64(index)))
        }
        for path in paths { #expect(origin.requestCount(for: path) == 1) }
        #expect(manager.fetchStatistics.originRequests == 10)
    }

    @Test func oneCancelledAskerDoesNotStopTheOthers() async throws {
        // Given three askers waiting on one gated fetch
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        let bytes = testBytes(count: 50_000)
        origin.register("/a.png", data: bytes, contentType: "image/png")
        origin.setBehavior("/a.png", .init(gated: true))
        let request = AssetRequest(url: origin.url(for: "/a.png"))
        let askers = (0..<3).map { _ in Task { try await manager.data(for: request) } }
        try await waitUntil("two asks joined") { manager.fetchStatistics.joins == 2 }
        try await origin.waitForInFlight(path: "/a.png", count: 1)

        // When the first asker cancels and the origin then answers
        askers[0].cancel()
        await #expect(throws: CancellationError.self) { try await askers[0].value }
        origin.release("/a.png")

        // Then the others get the bytes from the one request
        #expect(try await askers[1].value == bytes)
        #expect(try await askers[2].value == bytes)
        #expect(origin.requestCount(for: "/a.png") == 1)
    }

    @Test func allAskersCancelledClosesTheConnectionAndStoresNothing() async throws {
        // Given a body that stalls after 1 MiB (it never completes), being downloaded by two askers
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/slow.bin", data: testBytes(count: 4 << 20), contentType: "application/octet-stream")
        origin.setBehavior("/slow.bin", .init(stallAfterBodyBytes: 1 << 20))
        let request = AssetRequest(url: origin.url(for: "/slow.bin"))
        let askers = (0..<2).map { _ in Task { try await manager.data(for: request) } }
        try await waitUntil("one ask joined") { manager.fetchStatistics.joins == 1 }
        try await origin.waitForInFlight(path: "/slow.bin", count: 1)

        // When both cancel
        for asker in askers { asker.cancel() }
        for asker in askers { await #expect(throws: CancellationError.self) { try await asker.value } }

        // Then the origin sees the client hang up, and nothing was stored
        try await origin.waitUntilClientClosed(path: "/slow.bin")
        #expect(try await manager.readData(forKey: manager.cacheKey(for: request), storageType: .disk) == nil)

        // And a new ask starts a fresh fetch
        origin.setBehavior("/slow.bin", .normal)
        #expect(try await manager.data(for: request).count == 4 << 20)
        #expect(origin.requestCount(for: "/slow.bin") == 2)
    }

    @Test func keyFactoryStripsTokensSoSignedURLsShareAnEntry() async throws {
        let environment = try OriginEnvironment(keyFactory: .removingQueryItems(["token"]))
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/p.jpg", data: testBytes(count: 1_000), contentType: "image/jpeg")

        let first = try await manager.data(for: AssetRequest(url: origin.url(for: "/p.jpg?token=abc&size=2")))
        let second = try await manager.data(for: AssetRequest(url: origin.url(for: "/p.jpg?size=2&token=xyz")))

        #expect(first == second)
        #expect(origin.requestCount(for: "/p.jpg") == 1)
        #expect(
            manager.cacheKey(for: AssetRequest(url: origin.url(for: "/p.jpg?token=abc&size=2"))).rawValue.hasSuffix(
                "/p.jpg?size=2"))
    }
}
