import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("AnimationUtil freshness")
struct AnimationFreshnessTests {
    @Test("a parsed animation kept in memory is revalidated once it is stale, not served as it is")
    func staleAnimationIsRevalidated() async throws {
        // Given an animation fresh for a minute, parsed and kept in memory
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let url = environment.serve(
            "/shapes.json", Data(LottieFixtures.shapes.utf8), contentType: "application/json",
            cacheControl: "max-age=60"
        )
        let util = AnimationUtil(manager: environment.manager)
        let first = try await util.animation(for: url)
        #expect(try await util.animation(for: url) == first)
        #expect(environment.origin.requestCount(for: "/shapes.json") == 1)

        // When it is asked for after it went stale
        clock.advance(by: 120)
        let again = try await util.animationResult(for: AssetRequest(url: url))

        // Then the origin was asked to revalidate it (a conditional request answered 304)
        #expect(again.value == first)
        #expect(again.source == .network)
        #expect(environment.origin.requestCount(for: "/shapes.json") == 2)
        #expect(environment.origin.requests(for: "/shapes.json").last?.headers["if-none-match"] != nil)
        #expect(environment.manager.fetchStatistics.revalidations == 1)
    }
}
