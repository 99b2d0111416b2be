import CZlib
import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Fetch policy: schemes, hosts, redirects, hosts at once")
struct FetchPolicyRedirectTests {
    static let loopbackService = FetchPolicy.service.allowing(.loopback)

    @Test func aRedirectLoopIsRefusedWhenItComesBack() async throws {
        let fixture = try PolicyFixture(policy: Self.loopbackService)
        defer { fixture.tearDown() }
        let start = fixture.origin.url(for: "/loop-a")

        let error = await fixture.failure(fetching: start)

        #expect(error as? AssetsError == .fetchRefused(url: start, refusal: .redirectLoop))
        #expect(fixture.origin.requestCount(for: "/loop-a") == 1)
        #expect(fixture.origin.requestCount(for: "/loop-b") == 1)
        #expect(try await fixture.isStored(start) == false)
    }

    @Test func theRedirectLimitStopsTheHopPastIt() async throws {
        // Given a policy of at most 3 redirects and an endless chain /hop/0 → /hop/1 → …
        var policy = Self.loopbackService
        policy.maxRedirects = 3
        let fixture = try PolicyFixture(policy: policy)
        defer { fixture.tearDown() }

        let error = await fixture.failure(fetching: fixture.origin.url(for: "/hop/0"))

        // Then hops 0 to 3 were requested and the fourth redirect refused
        #expect(
            error as? AssetsError
                == .fetchRefused(url: fixture.origin.url(for: "/hop/4"), refusal: .redirectLimit(3)))
        for hop in 0...3 { #expect(fixture.origin.requestCount(for: "/hop/\(hop)") == 1) }
        #expect(fixture.origin.requestCount(for: "/hop/4") == 0)
    }

    @Test func redirectsWithinTheLimitAreFollowedAndStoredUnderTheAskedURL() async throws {
        let fixture = try PolicyFixture(policy: Self.loopbackService)
        defer { fixture.tearDown() }
        let bytes = testBytes(count: 30_000)
        fixture.origin.register("/final.png", data: bytes, contentType: "image/png")
        let start = fixture.redirect(to: fixture.redirect(to: "/final.png").absoluteString)

        let data = try await fixture.manager.data(for: AssetRequest(url: start))

        #expect(data == bytes)
        #expect(fixture.origin.requestCount(for: "/redirect") == 2)
        #expect(fixture.origin.requestCount(for: "/final.png") == 1)
        await fixture.manager.waitForPendingWrites()
        #expect(try await fixture.isStored(start))
    }

    @Test func schemesOutsideThePolicyAreRefusedDirectlyAndBehindARedirect() async throws {
        let fixture = try PolicyFixture(policy: Self.loopbackService)
        defer { fixture.tearDown() }
        let file = URL(string: "file:///etc/passwd")!
        #expect(
            await fixture.failure(fetching: file) as? AssetsError == .fetchRefused(url: file, refusal: .scheme("file")))

        let start = fixture.redirect(to: "file:///etc/passwd")
        #expect(
            await fixture.failure(fetching: start) as? AssetsError == .fetchRefused(url: file, refusal: .scheme("file"))
        )

        var httpsOnly = Self.loopbackService
        httpsOnly.allowedSchemes = ["https"]
        let strict = try PolicyFixture(policy: httpsOnly)
        defer { strict.tearDown() }
        let plain = strict.origin.url(for: "/cat.png")
        #expect(
            await strict.failure(fetching: plain) as? AssetsError == .fetchRefused(url: plain, refusal: .scheme("http"))
        )
        #expect(strict.origin.totalRequestCount == 0)
    }

    @Test func hostsOutsideTheAllowedListAreRefused() async throws {
        var policy = Self.loopbackService
        policy.allowedHosts = [".example.com", "localhost"]
        let fixture = try PolicyFixture(policy: policy)
        defer { fixture.tearDown() }
        fixture.origin.register("/cat.png", data: testBytes(count: 100), contentType: "image/png")
        let byAddress = fixture.origin.url(for: "/cat.png")

        #expect(
            await fixture.failure(fetching: byAddress) as? AssetsError
                == .fetchRefused(url: byAddress, refusal: .host("127.0.0.1")))
        let byName = URL(string: "http://LOCALHOST.:\(fixture.origin.port)/cat.png")!
        #expect(await fixture.failure(fetching: byName) == nil, "names compare without case and trailing dot")

        policy.refusedHosts = ["localhost"]
        let refusing = try PolicyFixture(policy: policy)
        defer { refusing.tearDown() }
        let refused = URL(string: "http://localhost:\(refusing.origin.port)/cat.png")!
        #expect(
            await refusing.failure(fetching: refused) as? AssetsError
                == .fetchRefused(url: refused, refusal: .host("localhost")))
    }

    @Test func credentialsStayBehindWhenARedirectLeavesTheOrigin() async throws {
        // Given two loopback origins, the first redirecting to the second
        let fixture = try PolicyFixture(policy: Self.loopbackService)
        defer { fixture.tearDown() }
        let other = SampleOrigin()
        try other.start()
        defer { other.stop() }
        other.register("/cat.png", data: testBytes(count: 100), contentType: "image/png")
        fixture.origin.register("/local.png", data: testBytes(count: 100), contentType: "image/png")
        let headers = ["Authorization": "Bearer secret", "X-Trace": "abc"]

        // When requests with credentials follow a redirect on the same origin and one to the other
        _ = try await fixture.manager.data(
            for: AssetRequest(url: fixture.redirect(to: "/local.png"), headers: headers))
        _ = try await fixture.manager.data(
            for: AssetRequest(url: fixture.redirect(to: other.url(for: "/cat.png").absoluteString), headers: headers))

        // Then the credentials reach the same origin only; other headers go along
        let local = try #require(fixture.origin.requests(for: "/local.png").first)
        #expect(local.headers["authorization"] == "Bearer secret")
        let away = try #require(other.requests(for: "/cat.png").first)
        #expect(away.headers["authorization"] == nil)
        #expect(away.headers["x-trace"] == "abc")
    }

    @Test func aDecompressionBombBehindARedirectIsTooLargeAndNothingIsStored() async throws {
        // Given 64 MiB of zeros deflated to a few KiB, behind a redirect, and a 1 MiB response limit
        let fixture = try PolicyFixture(policy: Self.loopbackService, maxResponseSize: 1 << 20)
        defer { fixture.tearDown() }
        let bomb = try Self.deflated(Data(count: 64 << 20))
        #expect(bomb.count < 128 << 10)
        fixture.origin.setHandler { request in
            guard request.path == "/bomb" else { return PolicyFixture.redirects(request) }
            return SampleOrigin.HandledResponse(
                status: 200, headers: [("Content-Type", "image/png"), ("Content-Encoding", "deflate")], body: bomb)
        }
        let start = fixture.redirect(to: "/bomb")

        // When it is fetched
        let error = await fixture.failure(fetching: start)

        // Then the inflated body is cut at the limit with a typed error, and nothing is stored
        #expect(error as? AssetsError == .responseTooLarge(url: fixture.origin.url(for: "/bomb"), limit: 1 << 20))
        #expect(try await fixture.isStored(start) == false)
        #expect(fixture.manager.fetchStatistics.bytesDownloaded == 0)
    }

    @Test func downloadsPerHostWaitForTheirHostOnly() async throws {
        // Given at most 2 downloads per host, one origin holding every request at its gate, and another origin
        var policy = Self.loopbackService
        policy.maxConnectionsPerHost = 2
        let fixture = try PolicyFixture(policy: policy)
        defer { fixture.tearDown() }
        let busy = fixture.environment.serve("/slow.png", testBytes(count: 1_000), behavior: .init(gated: true))
        let other = SampleOrigin()
        try other.start()
        defer { other.stop() }
        let otherBytes = testBytes(count: 2_000, seed: 9)
        other.register("/fast.png", data: otherBytes, contentType: "image/png")

        // When 5 downloads ask the gated host
        let slow = (0..<5).map { index in
            Task { try await fixture.manager.data(for: AssetRequest(url: busy, version: "\(index)")) }
        }
        try await fixture.origin.waitForInFlight(path: "/slow.png", count: 2)

        // Then a download from the other host is served meanwhile, and the busy host never sees more than 2
        let fast = try await fixture.manager.data(for: AssetRequest(url: other.url(for: "/fast.png")))
        #expect(fast == otherBytes)
        #expect(fixture.origin.requestCount(for: "/slow.png") == 2)
        fixture.origin.setBehavior("/slow.png", .normal)
        for task in slow { _ = try await task.value }
        #expect(fixture.origin.requestCount(for: "/slow.png") == 5)
        #expect(fixture.origin.peakInFlight(for: "/slow.png") == 2)
    }

    /// `data` deflated in the zlib format (HTTP's `deflate` content coding).
    static func deflated(_ data: Data) throws -> Data {
        var capacity = compressBound(uLong(data.count))
        var output = Data(count: Int(capacity))
        let status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                compress2(
                    out.baseAddress!.assumingMemoryBound(to: Bytef.self), &capacity,
                    input.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(data.count), 9)
            }
        }
        try #require(status == Z_OK)
        return output.prefix(Int(capacity))
    }
}
