import Foundation
import MediaAssets
import SampleOrigin
import TestSupport

/// A loopback origin that redirects, and a manager under a fetch policy whose loader stops (and counts) any
/// request for a host outside loopback before URLSession sees it.
///
/// The origin answers `/redirect?to=<url>` with a 302 to `<url>`, `/hop/<n>` with a 302 to `/hop/<n+1>`,
/// `/loop-a` and `/loop-b` with 302s to each other, and serves what `serve` registers.
struct PolicyFixture {
    let environment: OriginEnvironment
    let guardian = LoopbackGuard()

    init(
        policy: FetchPolicy, maxResponseSize: Int = 256 << 20,
        stageLimits: AssetsManager.Configuration.StageLimits = .init()
    ) throws {
        environment = try OriginEnvironment(
            retryPolicy: .none, loader: guardian.loader(maxResponseSize: maxResponseSize), fetchPolicy: policy,
            stageLimits: stageLimits)
        environment.origin.setHandler(Self.redirects)
    }

    var origin: SampleOrigin { environment.origin }
    var manager: AssetsManager { environment.manager }

    func tearDown() { environment.tearDown() }

    /// The origin's URL that redirects to `target`.
    func redirect(to target: String) -> URL {
        var components = URLComponents(url: origin.url(for: "/redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target)]
        return components.url!
    }

    /// Fetches `url` and returns the error it fails with (`nil` when it succeeds).
    func failure(fetching url: URL, headers: [String: String] = [:]) async -> Error? {
        do {
            _ = try await manager.data(for: AssetRequest(url: url, headers: headers))
            return nil
        } catch {
            return error
        }
    }

    /// Whether the disk cache holds an entry for `url`.
    func isStored(_ url: URL) async throws -> Bool {
        try await manager.readData(forKey: manager.cacheKey(for: AssetRequest(url: url)), storageType: .disk) != nil
    }

    @Sendable static func redirects(_ request: SampleOrigin.HandledRequest) -> SampleOrigin.HandledResponse {
        let query = URLComponents(string: request.target)?.queryItems ?? []
        switch request.path {
        case "/redirect":
            guard let target = query.first(where: { $0.name == "to" })?.value else { break }
            return SampleOrigin.HandledResponse(status: 302, headers: [("Location", target)])
        case "/loop-a": return SampleOrigin.HandledResponse(status: 302, headers: [("Location", "/loop-b")])
        case "/loop-b": return SampleOrigin.HandledResponse(status: 301, headers: [("Location", "/loop-a")])
        default:
            if request.path.hasPrefix("/hop/"), let hop = Int(request.path.dropFirst("/hop/".count)) {
                return SampleOrigin.HandledResponse(status: 307, headers: [("Location", "/hop/\(hop + 1)")])
            }
        }
        return .text(status: 404, "no such path")
    }
}
