import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport
import Testing

/// `Expires` (RFC 9111 §5.3, when there is no `max-age`) and `Vary` (§4.1), through the manager against a
/// loopback origin whose answers a handler writes.
@Suite("HTTP caching headers: Expires and Vary")
struct HTTPCachingHeaderTests {
    /// An origin path answering 200 with `headers` (and an ETag), or 304 to a request that sends the ETag back;
    /// `body` picks the bytes from the request's headers.
    static func serve(
        _ environment: OriginEnvironment, path: String, headers: @escaping @Sendable () -> [(String, String)],
        body: @escaping @Sendable ([String: String]) -> Data = { _ in Data("body".utf8) }
    ) -> URL {
        environment.origin.setHandler { request in
            guard request.path == path else { return .text(status: 404, "no") }
            let etag = "\"v1\""
            if request.headers["if-none-match"] == etag {
                return SampleOrigin.HandledResponse(status: 304, headers: [("ETag", etag)] + headers())
            }
            return SampleOrigin.HandledResponse(
                status: 200, headers: [("ETag", etag), ("Content-Type", "image/png")] + headers(),
                body: body(request.headers))
        }
        return environment.origin.url(for: path)
    }

    static func httpDate(_ date: Date, format: String = "EEE, dd MMM yyyy HH:mm:ss 'GMT'") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    // MARK: Expires

    @Test func expiresWithoutMaxAgeIsFreshForExpiresLessDate() async throws {
        // Given a response generated 10 s before it arrived (the origin's clock is behind), expiring 90 s after
        // it arrived: a lifetime of 100 s counted from its Date, as RFC 9111 §4.2.1 says
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let start = clock.date
        let url = Self.serve(environment, path: "/expiring.png") {
            [("Date", Self.httpDate(start - 10)), ("Expires", Self.httpDate(start + 90))]
        }
        let request = AssetRequest(url: url)

        // When it is fetched
        let entry = try await environment.manager.entry(for: request)

        // Then it is fresh for 100 s: no request until then, a revalidation after
        #expect(entry.metadata.freshUntil == start + 100)
        clock.advance(by: 99)
        _ = try await environment.manager.data(for: request)
        #expect(environment.origin.requestCount(for: "/expiring.png") == 1)
        clock.advance(by: 2)
        _ = try await environment.manager.data(for: request)
        #expect(environment.origin.requests(for: "/expiring.png").map(\.status) == [200, 304])
    }

    @Test func expiresWithoutDateCountsFromArrival() async throws {
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let start = clock.date
        let url = Self.serve(environment, path: "/e.png") { [("Expires", Self.httpDate(start + 50))] }
        let entry = try await environment.manager.entry(for: AssetRequest(url: url))
        #expect(entry.metadata.freshUntil == start + 50)
    }

    @Test(
        "every HTTP date form reads the same instant",
        arguments: [
            "EEE, dd MMM yyyy HH:mm:ss 'GMT'",  // IMF-fixdate
            "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",  // RFC 850
            "EEE MMM d HH:mm:ss yyyy",  // asctime (one-digit days padded below)
        ])
    func everyDateForm(format: String) async throws {
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let start = clock.date
        let url = Self.serve(environment, path: "/d.png") {
            var expires = Self.httpDate(start + 3_600, format: format)
            if format.hasPrefix("EEE MMM d ") {
                // asctime pads a one-digit day with a space: "Sun Nov  6 08:49:37 1994"
                let parts = expires.split(separator: " ")
                if parts[2].count == 1 { expires = "\(parts[0]) \(parts[1])  \(parts[2]) \(parts[3]) \(parts[4])" }
            }
            return [("Date", Self.httpDate(start)), ("Expires", expires)]
        }
        let entry = try await environment.manager.entry(for: AssetRequest(url: url))
        #expect(entry.metadata.freshUntil == start + 3_600)
    }

    @Test("an invalid Expires means already expired", arguments: ["0", "-1", "Thu, 31 Feb 2030 10:00:00 GMT", "soon"])
    func invalidExpiresIsAlreadyExpired(value: String) async throws {
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let url = Self.serve(environment, path: "/x.png") { [("Expires", value)] }
        let request = AssetRequest(url: url)

        let entry = try await environment.manager.entry(for: request)
        _ = try await environment.manager.data(for: request)

        #expect(entry.metadata.freshUntil == clock.date)
        #expect(environment.origin.requests(for: "/x.png").map(\.status) == [200, 304])
    }

    @Test func maxAgeOutranksExpires() async throws {
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let start = clock.date
        let url = Self.serve(environment, path: "/m.png") {
            [("Cache-Control", "max-age=10"), ("Expires", Self.httpDate(start + 1_000))]
        }
        let entry = try await environment.manager.entry(for: AssetRequest(url: url))
        #expect(entry.metadata.freshUntil == start + 10)
    }

    // MARK: Vary

    @Test func varyStarIsNeverStored() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = Self.serve(environment, path: "/star.png") { [("Vary", "*"), ("Cache-Control", "max-age=600")] }

        _ = try await environment.manager.data(for: AssetRequest(url: url))
        _ = try await environment.manager.data(for: AssetRequest(url: url))

        #expect(environment.origin.requestCount(for: "/star.png") == 2)
        #expect(try await environment.isOnDisk("/star.png") == false)
    }

    @Test func varyingOnAnExplicitHeaderStoresOneEntryPerValue() async throws {
        // Given a server that picks the format from Accept and says so
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = Self.serve(
            environment, path: "/photo", headers: { [("Vary", "Accept"), ("Cache-Control", "max-age=600")] },
            body: { headers in Data((headers["accept"] ?? "none").utf8) })
        let webp = AssetRequest(url: url, headers: ["Accept": "image/webp"])
        let png = AssetRequest(url: url, headers: ["Accept": "image/png"])
        let plain = AssetRequest(url: url)

        // When each is asked for twice
        for _ in 0..<2 {
            #expect(try await environment.manager.data(for: webp) == Data("image/webp".utf8))
            #expect(try await environment.manager.data(for: png) == Data("image/png".utf8))
            // libcurl sends `Accept: */*` when the request names none: the same on every request
            #expect(try await environment.manager.data(for: plain) == Data("*/*".utf8))
        }

        // Then each representation was fetched once and is stored under a key of its own
        #expect(environment.origin.requestCount(for: "/photo") == 3)
        let keys = [webp, png, plain].map(environment.manager.cacheKey(for:))
        #expect(Set(keys).count == 3)
        #expect(keys[0].rawValue == url.absoluteString + "@headers(accept=image/webp)")
        await environment.manager.waitForPendingWrites()
        for key in keys { #expect(try await environment.manager.readData(forKey: key, storageType: .disk) != nil) }
    }

    @Test(
        "a response that varies on a header the key leaves out is not stored",
        arguments: [
            (vary: "Authorization", headers: ["Authorization": "Bearer a"], key: nil as CacheKey?),
            (vary: "Cookie, Accept", headers: ["Cookie": "session=1"], key: nil),
            (vary: "Accept", headers: ["Accept": "image/avif"], key: "my-own-key"),
        ])
    func varyOnAnUnkeyedHeaderIsNotStored(vary: String, headers: [String: String], key: CacheKey?) async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = Self.serve(environment, path: "/private.png") { [("Vary", vary), ("Cache-Control", "max-age=600")] }
        let request = AssetRequest(url: url, headers: headers, key: key)

        _ = try await environment.manager.data(for: request)
        _ = try await environment.manager.data(for: request)

        #expect(environment.origin.requestCount(for: "/private.png") == 2)
        let storedKey = environment.manager.cacheKey(for: request)
        #expect(try await environment.manager.readData(forKey: storedKey, storageType: .disk) == nil)
    }

    @Test(
        "a response that varies only on what the key and the loader fix is stored",
        arguments: ["Accept-Encoding", "Accept", "User-Agent, Accept-Language", "accept-encoding, origin"])
    func varyOnFixedHeadersIsStored(vary: String) async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = Self.serve(environment, path: "/shared.png") { [("Vary", vary), ("Cache-Control", "max-age=600")] }

        _ = try await environment.manager.data(for: AssetRequest(url: url))
        _ = try await environment.manager.data(for: AssetRequest(url: url))

        #expect(environment.origin.requestCount(for: "/shared.png") == 1)
    }

    @Test func credentialsAndConditionsAreNotPartOfTheKey() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = URL(string: "https://cdn.example.com/a.png")!
        let plain = environment.manager.cacheKey(for: AssetRequest(url: url))
        let unkeyed = AssetRequest(
            url: url,
            headers: ["Authorization": "Bearer x", "Cookie": "a=b", "Range": "bytes=0-1", "If-None-Match": "\"e\""])
        #expect(environment.manager.cacheKey(for: unkeyed) == plain)
        let keyed = AssetRequest(url: url, headers: ["X-Size": " 96 ", "Accept": "image/webp;q=1@#"])
        #expect(
            environment.manager.cacheKey(for: keyed).rawValue
                == url.absoluteString + "@headers(accept=image/webp%3Bq%3D1%40%23;x-size=96)")
        #expect(environment.manager.cacheKey(for: keyed).isDerived(fromAsset: plain))
    }
}
