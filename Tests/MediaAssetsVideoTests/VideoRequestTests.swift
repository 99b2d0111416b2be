import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct VideoRequestTests {
    @Test func aRequestsHeadersReachEveryFetch() async throws {
        // Given a video of 4 chunks and a request carrying an authorization header
        let chunk = 16 << 10
        let fixture = try VideoFixture(size: 4 * chunk, chunkSize: chunk)
        defer { fixture.tearDown() }
        let request = AssetRequest(url: fixture.url, headers: ["Authorization": "Bearer t0k3n"])

        // When it is probed and read
        let data = try await fixture.video.data(for: request, range: chunk..<(4 * chunk))

        // Then the probe and the range fetch both carried the header
        #expect(data == fixture.bytes(chunk..<(4 * chunk)))
        let requests = fixture.origin.requests(for: fixture.path)
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer t0k3n" })
    }

    @Test func aNewVersionIsANewResourceAndTheKeyFactoryStripsTokens() async throws {
        // Given a manager whose keys drop "token", and a video read at version 1
        let environment = try OriginEnvironment(keyFactory: .removingQueryItems(["token"]))
        defer { environment.tearDown() }
        let source = testBytes(count: 32 << 10, seed: 9)
        environment.serve("/v.mp4", source, contentType: "video/mp4")
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 16 << 10))
        let signed = { (token: String) in environment.origin.url(for: "/v.mp4?token=\(token)") }
        _ = try await video.data(for: AssetRequest(url: signed("a"), version: "1"), range: 0..<source.count)
        let afterFirst = environment.origin.requestCount(for: "/v.mp4")

        // When it is read with another token at the same version, then at version 2
        let again = try await video.data(for: AssetRequest(url: signed("b"), version: "1"), range: 0..<source.count)
        let sameVersionRequests = environment.origin.requestCount(for: "/v.mp4") - afterFirst
        _ = try await video.data(for: AssetRequest(url: signed("b"), version: "2"), range: 0..<source.count)

        // Then the token made no difference, and the new version was fetched anew
        #expect(again == source)
        #expect(sameVersionRequests == 0)
        #expect(environment.origin.requestCount(for: "/v.mp4") > afterFirst)
    }
}
