import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

/// Every refused address class, directly and behind a redirect from a loopback origin. No test here connects
/// outside loopback: the fixture's loader stops such a request before URLSession gets it, and each test
/// checks that it never had to.
@Suite("Fetch policy: addresses")
struct FetchPolicyAddressTests {
    /// A refused address: the URL's host, the address it is, and its class.
    struct RefusedAddress: Sendable, CustomTestStringConvertible {
        let host: String
        let address: String
        let rule: FetchPolicy.AddressClass
        var testDescription: String { "\(host) (\(rule.rawValue))" }

        init(_ host: String, _ rule: FetchPolicy.AddressClass, address: String? = nil) {
            self.host = host
            self.rule = rule
            self.address = address ?? host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        }

        func url(port: Int = 8080) -> URL { URL(string: "http://\(host):\(port)/image.png")! }

        var refusal: FetchRefusal {
            .address(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), address: address, rule: rule)
        }
    }

    static let refused: [RefusedAddress] = [
        RefusedAddress("127.0.0.2", .loopback),
        RefusedAddress("[::1]", .loopback),
        RefusedAddress("[::ffff:127.0.0.2]", .loopback, address: "::ffff:127.0.0.2"),
        RefusedAddress("2130706434", .loopback, address: "127.0.0.2"),
        RefusedAddress("0x7f.2", .loopback, address: "127.0.0.2"),
        RefusedAddress("10.1.2.3", .privateNetwork),
        RefusedAddress("172.16.5.4", .privateNetwork),
        RefusedAddress("172.31.255.255", .privateNetwork),
        RefusedAddress("192.168.1.1", .privateNetwork),
        RefusedAddress("100.100.100.200", .privateNetwork),
        RefusedAddress("[fd12:3456::1]", .privateNetwork),
        RefusedAddress("[::ffff:10.0.0.1]", .privateNetwork, address: "::ffff:10.0.0.1"),
        RefusedAddress("169.254.169.254", .linkLocal),
        RefusedAddress("[fe80::1]", .linkLocal),
        RefusedAddress("[::ffff:169.254.169.254]", .linkLocal, address: "::ffff:169.254.169.254"),
        RefusedAddress("[64:ff9b::a9fe:a9fe]", .linkLocal, address: "64:ff9b::a9fe:a9fe"),
        RefusedAddress("[2002:a9fe:a9fe::1]", .linkLocal, address: "2002:a9fe:a9fe::1"),
        RefusedAddress("224.0.0.1", .multicast),
        RefusedAddress("[ff02::1]", .multicast),
        RefusedAddress("0.0.0.0", .unspecified),
        RefusedAddress("[::]", .unspecified),
        RefusedAddress("255.255.255.255", .reserved),
        RefusedAddress("240.1.2.3", .reserved),
    ]

    @Test("a service refuses each class before connecting", arguments: refused)
    func refusedDirectly(_ refused: RefusedAddress) async throws {
        // Given a service's policy
        let fixture = try PolicyFixture(policy: .service)
        defer { fixture.tearDown() }
        let url = refused.url()

        // When it is asked for the address
        let error = await fixture.failure(fetching: url)

        // Then the refusal names the address and the rule, and nothing was connected to or stored
        #expect(error as? AssetsError == .fetchRefused(url: url, refusal: refused.refusal))
        #expect(fixture.guardian.stoppedURLs.isEmpty)
        #expect(try await fixture.isStored(url) == false)
        #expect(fixture.manager.fetchStatistics.retries == 0)
    }

    @Test("a service refuses each class behind a redirect from a loopback origin", arguments: refused)
    func refusedBehindARedirect(_ refused: RefusedAddress) async throws {
        // Given a service whose own test origin (127.0.0.1 only, so 127.0.0.2 stays refused) redirects to the
        // address
        let fixture = try PolicyFixture(policy: .service.allowing(FetchPolicy.AddressRange("127.0.0.1/32")!))
        defer { fixture.tearDown() }
        let target = refused.url(port: fixture.origin.port)
        let start = fixture.redirect(to: target.absoluteString)

        // When the redirecting URL is fetched
        let error = await fixture.failure(fetching: start)

        // Then the redirect is refused before its connection, and nothing is stored
        #expect(error as? AssetsError == .fetchRefused(url: target, refusal: refused.refusal))
        #expect(fixture.origin.requestCount(for: "/redirect") == 1)
        #expect(fixture.guardian.stoppedURLs.isEmpty)
        #expect(try await fixture.isStored(start) == false)
    }

    @Test func localhostResolvesAndIsRefusedAsLoopback() async throws {
        let fixture = try PolicyFixture(policy: .service)
        defer { fixture.tearDown() }
        let url = URL(string: "http://localhost:\(fixture.origin.port)/cat.png")!
        fixture.origin.register("/cat.png", data: testBytes(count: 100), contentType: "image/png")

        let error = await fixture.failure(fetching: url)

        guard case .fetchRefused(url, .address(host: "localhost", _, rule: .loopback))? = error as? AssetsError else {
            Issue.record("expected a loopback refusal, got \(String(describing: error))")
            return
        }
        #expect(fixture.origin.totalRequestCount == 0)
    }

    @Test func aServiceThatAllowsLoopbackFetchesFromItPinnedToTheCheckedAddress() async throws {
        // Given a service's policy with loopback allowed explicitly, and a resource asked for by name
        let fixture = try PolicyFixture(policy: .service.allowing(.loopback))
        defer { fixture.tearDown() }
        let bytes = testBytes(count: 40_000)
        fixture.origin.register("/cat.png", data: bytes, contentType: "image/png")
        let byName = URL(string: "http://localhost:\(fixture.origin.port)/cat.png")!

        // When it is fetched by name and by address
        let viaName = try await fixture.manager.data(for: AssetRequest(url: byName))
        let viaAddress = try await fixture.manager.data(for: AssetRequest(url: fixture.origin.url(for: "/cat.png")))

        // Then both arrive; the named request went to the checked address with its name in Host
        #expect(viaName == bytes)
        #expect(viaAddress == bytes)
        let hosts = fixture.origin.requests(for: "/cat.png").map { $0.headers["host"] }
        #expect(hosts == ["localhost:\(fixture.origin.port)", "127.0.0.1:\(fixture.origin.port)"])
        #expect(try await fixture.isStored(byName))
    }

    @Test func aServiceRefusesItsOwnLoopbackOriginUnlessAllowed() async throws {
        let fixture = try PolicyFixture(policy: .service)
        defer { fixture.tearDown() }
        let url = fixture.origin.url(for: "/cat.png")
        fixture.origin.register("/cat.png", data: testBytes(count: 100), contentType: "image/png")

        let error = await fixture.failure(fetching: url)

        #expect(
            error as? AssetsError
                == .fetchRefused(url: url, refusal: .address(host: "127.0.0.1", address: "127.0.0.1", rule: .loopback)))
        #expect(fixture.origin.totalRequestCount == 0)
    }

    @Test func theAppPolicyLetsEveryAddressThrough() async throws {
        // Given the default policy (apps): a private address is not refused by the policy, so the request
        // reaches the loader, where the test's guard stops it before it connects
        let fixture = try PolicyFixture(policy: .app)
        defer { fixture.tearDown() }
        let privateURL = URL(string: "http://10.1.2.3:8080/photo.jpg")!
        let error = await fixture.failure(fetching: privateURL)
        guard case .networkFailure(privateURL, _, let reason)? = error as? AssetsError else {
            Issue.record("expected the guard's stop, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("outside loopback"))
        #expect(fixture.guardian.stoppedURLs == [privateURL])

        // And loopback is served
        let bytes = testBytes(count: 5_000)
        fixture.origin.register("/cat.png", data: bytes, contentType: "image/png")
        #expect(try await fixture.manager.data(for: AssetRequest(url: fixture.origin.url(for: "/cat.png"))) == bytes)
    }

    @Test func addressRangesAllowExactlyTheirNetworks() {
        let range = FetchPolicy.AddressRange("10.20.0.0/16")
        #expect(range?.description == "10.20.0.0/16")
        #expect(FetchPolicy.AddressRange("10.20.3.4/16") == range, "host bits are cleared")
        #expect(FetchPolicy.AddressRange("fd00::/8")?.description == "fd00::/8")
        #expect(FetchPolicy.AddressRange("127.0.0.1")?.description == "127.0.0.1/32")
        for invalid in ["", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "fd00::/129", "example.com", "10.0.0.0/8/8"] {
            #expect(FetchPolicy.AddressRange(invalid) == nil, "\(invalid)")
        }
    }
}
