import Foundation
import MediaAssets
import MediaAssetsImage
import TestSupport
import Testing

@Suite("ImageUtil freshness")
struct ImageUtilFreshnessTests {
    private static func solidJPEG(_ color: RGBA) throws -> Data {
        try ImageEncoder.jpeg(Image(width: 200, height: 200, fill: color), quality: 95)
    }

    @Test func staleVariantIsMadeAgainFromTheRevalidatedOriginal() async throws {
        // Given a red avatar, fresh for 60 s, styled once
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let util = ImageUtil(manager: environment.manager)
        let url = environment.serve(
            "/u/7.jpg", try Self.solidJPEG(RGBA(red: 220, green: 30, blue: 30)), contentType: "image/jpeg",
            cacheControl: "max-age=60"
        )
        let first = try await util.image(for: url, style: .circle(diameter: 64))
        #expect(first[32, 32].red > 200)

        // While fresh, asking again costs nothing
        _ = try await util.image(for: url, style: .circle(diameter: 64))
        #expect(environment.origin.requestCount(for: "/u/7.jpg") == 1)

        // When it goes stale unchanged, a 304 keeps the original and the variant is made again
        clock.advance(by: 120)
        let unchanged = try await util.image(for: url, style: .circle(diameter: 64))
        #expect(environment.origin.requests(for: "/u/7.jpg").map(\.status) == [200, 304])
        #expect(unchanged[32, 32].red > 200)

        // When the avatar changes behind the same URL and goes stale again, the new one is shown
        environment.origin.replace("/u/7.jpg", data: try Self.solidJPEG(RGBA(red: 30, green: 30, blue: 220)))
        clock.advance(by: 120)
        let changed = try await util.image(for: url, style: .circle(diameter: 64))
        #expect(environment.origin.requests(for: "/u/7.jpg").map(\.status) == [200, 304, 200])
        #expect(changed[32, 32].blue > 200 && changed[32, 32].red < 60)
    }
}
