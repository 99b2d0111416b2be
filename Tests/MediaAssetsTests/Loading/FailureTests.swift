import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Fetch failures and retries")
struct FailureTests {
    @Test func twoServerErrorsThenSuccessRetriesTwice() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let bytes = testBytes(count: 10_000)
        environment.origin.register("/flaky", data: bytes, contentType: "image/png")
        environment.origin.setBehavior("/flaky", .init(failNext: 2, failStatus: 500))

        let data = try await environment.manager.data(for: AssetRequest(url: environment.origin.url(for: "/flaky")))

        #expect(data == bytes)
        #expect(environment.origin.requests(for: "/flaky").map(\.status) == [500, 500, 200])
        #expect(environment.manager.fetchStatistics.retries == 2)
        #expect(environment.manager.fetchStatistics.originRequests == 3)
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        environment.origin.register("/busy", data: Data("ok".utf8), contentType: "text/plain")
        environment.origin.setBehavior("/busy", .init(failNext: 1, failStatus: 429, retryAfter: 0))
        #expect(
            try await environment.manager.data(for: AssetRequest(url: environment.origin.url(for: "/busy")))
                == Data("ok".utf8))
        #expect(environment.origin.requests(for: "/busy").map(\.status) == [429, 200])
    }

    @Test func notFoundIsNotRetriedAndReachesEveryWaiter() async throws {
        // Given a gated missing resource and three askers
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        environment.origin.setBehavior("/missing", .init(gated: true))
        let url = environment.origin.url(for: "/missing")
        let askers = (0..<3).map { _ in Task { try await environment.manager.data(for: AssetRequest(url: url)) } }
        try await waitUntil("two joined") { environment.manager.fetchStatistics.joins == 2 }
        try await environment.origin.waitForInFlight(path: "/missing", count: 1)
        environment.origin.release("/missing")

        // Then each gets the same typed error, from one request
        for asker in askers {
            await #expect(throws: AssetsError.httpStatus(code: 404, url: url)) { try await asker.value }
        }
        #expect(environment.origin.requestCount(for: "/missing") == 1)
        #expect(environment.manager.fetchStatistics.retries == 0)
    }

    @Test func connectionClosedMidBodyIsATypedErrorAndNothingIsCached() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        environment.origin.register("/cut", data: testBytes(count: 100_000), contentType: "image/jpeg")
        environment.origin.setBehavior("/cut", .init(closeAfterBodyBytes: 30_000))

        let error = await #expect(throws: AssetsError.self) {
            try await environment.manager.data(for: AssetRequest(url: environment.origin.url(for: "/cut")))
        }
        switch error {
        case .networkFailure?, .lengthMismatch?: break
        default: Issue.record("expected a network failure or length mismatch, got \(String(describing: error))")
        }
        #expect(try await environment.isOnDisk("/cut") == false)
        #expect(environment.origin.requestCount(for: "/cut") == 3, "a lost connection is transient: 3 attempts")
    }

    @Test func announcedLengthLongerThanTheBodyIsATypedErrorAndNothingIsCached() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve(
            "/liar", testBytes(count: 5_000), contentType: "image/jpeg", behavior: .init(contentLengthOffset: 40))

        await #expect(throws: AssetsError.lengthMismatch(url: url, expected: 5_040, received: 5_000)) {
            try await environment.manager.data(for: AssetRequest(url: url))
        }
        #expect(try await environment.isOnDisk("/liar") == false)
        #expect(environment.origin.requestCount(for: "/liar") == 3, "a length mismatch is transient: 3 attempts")
    }

    @Test func aHugeAnnouncedLengthIsNotReservedAndEndsAsALengthMismatch() async throws {
        // Given a server announcing 200 MiB and sending 1 KiB before it hangs up (the loader reserves at most
        // 1 MiB of an announced length, so the claim costs nothing)
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve(
            "/claim", testBytes(count: 1_024), contentType: "image/jpeg",
            behavior: .init(contentLengthOffset: 200 << 20))

        await #expect(throws: AssetsError.lengthMismatch(url: url, expected: (200 << 20) + 1_024, received: 1_024)) {
            try await environment.manager.data(for: AssetRequest(url: url))
        }
        #expect(try await environment.isOnDisk("/claim") == false)
    }

    @Test func aLyingLengthOnAStreamedBodyIsATypedErrorAndNothingIsStored() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve(
            "/liar", testBytes(count: 5_000), contentType: "video/mp4", behavior: .init(contentLengthOffset: 40))

        let response = try await environment.manager.runtime.stream(URLRequest(url: url))
        await #expect(throws: AssetsError.lengthMismatch(url: url, expected: 5_040, received: 5_000)) {
            _ = try await response.body.collect()
        }
    }

    @Test func bodyLongerThanItsContentLengthIsRejectedWhenALoaderSeesIt() async throws {
        // URLSession stops reading at Content-Length, so the surplus of a server that sends more
        // never reaches us over HTTP/1.1. A loader that does see it (a raw-socket or test loader)
        // returns the longer body; the manager must refuse it.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(string: "https://cdn.example.com/a.png")!
        let loader = FixedResponseLoader(
            DataResponse(url: url, statusCode: 200, headers: ["Content-Length": "10"], data: Data(count: 50))
        )
        let manager = try AssetsManager.forTesting(directory: directory, loader: loader)

        await #expect(throws: AssetsError.lengthMismatch(url: url, expected: 10, received: 50)) {
            try await manager.data(for: AssetRequest(url: url))
        }
        #expect(
            try await manager.readData(forKey: manager.cacheKey(for: AssetRequest(url: url)), storageType: .disk) == nil
        )
        #expect(loader.callCount == 3, "a length mismatch is transient: retried up to the policy's 3 attempts")
    }

    @Test func oversizeResponseFailsAndIsNotStored() async throws {
        let environment = try OriginEnvironment(maxResponseSize: 64_000)
        defer { environment.tearDown() }
        let url = environment.serve("/huge", testBytes(count: 200_000), contentType: "image/jpeg")

        await #expect(throws: AssetsError.responseTooLarge(url: url, limit: 64_000)) {
            try await environment.manager.data(for: AssetRequest(url: url))
        }
        #expect(try await environment.isOnDisk("/huge") == false)
    }

    @Test func cacheOnlyMissThrowsNotCached() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let request = AssetRequest(url: environment.origin.url(for: "/never"), cachePolicy: .cacheOnly)
        await #expect(throws: AssetsError.notCached(key: environment.manager.cacheKey(for: request))) {
            try await environment.manager.data(for: request)
        }
        #expect(environment.origin.totalRequestCount == 0)
    }
}
