import Foundation
import Testing

@testable import MediaAssets

/// The header readers behind freshness, Vary and retries, on their own.
@Suite("HTTP header parsing")
struct HTTPHeaderParsingTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(
        "the three HTTP date forms",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func dateForms(text: String) {
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_700_000_000)) == Self.example)
    }

    @Test(
        "text that is not an HTTP date",
        arguments: [
            "", "0", "-1", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Funday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 94", "Sun, +6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT trailing",
        ])
    func notDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func twoDigitYearsMoreThanFiftyYearsAheadAreInThePast() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023
        let ahead = HTTPDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now: now)  // 2070 is within 50 years
        let past = HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: now)  // 2099 is not: 1999
        #expect(ahead == Date(timeIntervalSince1970: 3_155_760_000))
        #expect(past == Date(timeIntervalSince1970: 915_148_800))
    }

    @Test func deltaSecondsAreDigitsOnlyAndCapped() {
        #expect(HTTPFreshness.deltaSeconds("60") == 60)
        #expect(HTTPFreshness.deltaSeconds(" 0 ") == 0)
        #expect(HTTPFreshness.deltaSeconds("99999999999999999999999") == 2_147_483_648)
        for invalid in ["", "-5", "1e3", "inf", "nan", "0x10", "6 0", "+60", "60.5"] {
            #expect(HTTPFreshness.deltaSeconds(invalid) == nil, "\(invalid)")
        }
    }

    @Test func cacheControlReadsItsDirectives() {
        let freshness = HTTPFreshness(
            headers: [
                "cache-control": "public, max-age=\"120\", stale-while-revalidate=30, stale-if-error=x", "age": "20",
            ])
        #expect(freshness.maxAge == 120)
        #expect(freshness.staleWhileRevalidate == 30)
        #expect(freshness.staleIfError == nil)
        let received = Date(timeIntervalSince1970: 1_000)
        #expect(freshness.freshUntil(receivedAt: received, defaultTimeToLive: 5) == received + 100)
        #expect(HTTPFreshness(headers: ["cache-control": "max-age=1e9"]).maxAge == nil)
    }

    @Test func retryAfterTakesSecondsOrADate() {
        let now = Self.example
        #expect(RetryPolicy.retryAfter("120", date: nil, now: now) == 120)
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:50:37 GMT", date: nil, now: now) == 60)
        #expect(
            RetryPolicy.retryAfter(
                "Sun, 06 Nov 1994 08:50:37 GMT", date: "Sun, 06 Nov 1994 08:50:00 GMT", now: now) == 37)
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT", date: nil, now: now) == 0)
        for invalid in [nil, "", "soon", "-1", "1.5", "inf"] as [String?] {
            #expect(RetryPolicy.retryAfter(invalid, date: nil, now: now) == nil)
        }
    }

    @Test func aBodyBufferGrowsAsBytesArriveNotAsTheHeadClaims() {
        let mebibyte = 1 << 20
        // At the head: at most 1 MiB of what is announced
        #expect(SessionDelegate.capacity(toHold: 0, holding: 0, declared: 200 << 20) == mebibyte)
        #expect(SessionDelegate.capacity(toHold: 0, holding: 0, declared: 5_000) == 5_000)
        // Then twice what arrived, never past the announced length
        #expect(SessionDelegate.capacity(toHold: mebibyte + 1, holding: mebibyte, declared: 200 << 20) == 2 * mebibyte)
        #expect(SessionDelegate.capacity(toHold: mebibyte + 1, holding: mebibyte, declared: 1_500_000) == 1_500_000)
        // A body longer than announced (a loader that sees it) still fits; without an announcement, doubling
        #expect(SessionDelegate.capacity(toHold: 6_000, holding: 5_000, declared: 5_000) == 6_000)
        #expect(
            SessionDelegate.capacity(toHold: 3 * mebibyte + 1, holding: 3 * mebibyte, declared: nil) == 6 * mebibyte)
    }

    @Test func varyNamesAreReadAsASet() {
        #expect(HTTPVary(header: nil) == .none)
        #expect(HTTPVary(header: " , ") == .none)
        #expect(
            HTTPVary(header: "Accept, accept-encoding ,ORIGIN") == .headers(["accept", "accept-encoding", "origin"]))
        #expect(HTTPVary(header: "Accept, *") == .any)
    }
}
