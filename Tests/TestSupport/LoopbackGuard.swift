import Foundation
import MediaAssets
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Thrown by a ``LoopbackGuard`` instead of letting a request for a host outside loopback reach URLSession.
public struct NonLoopbackConnection: Error, Equatable, CustomStringConvertible {
    /// The URL the loader was about to connect to.
    public let url: URL
    public var description: String { "the loader was about to connect outside loopback: \(url.absoluteString)" }
}

/// Stands in front of URLSession in fetch-policy tests: every request the loader is about to hand over (the
/// first hop and each redirect) must name a loopback host (`127.x.x.x`, `::1`, `localhost`), or the guard
/// throws ``NonLoopbackConnection`` and counts it. A policy bug then fails its test at once, and no test ever
/// connects to an address outside loopback.
public final class LoopbackGuard: Sendable {
    private let stopped = Mutex<[URL]>([])

    public init() {}

    /// The requests stopped so far (none, when every refusal came from the policy).
    public var stoppedURLs: [URL] { stopped.withLock { $0 } }

    /// A loader with a session of its own (a long timeout, as `forTesting`'s) behind this guard.
    public func loader(maxResponseSize: Int = 256 << 20) -> URLSessionLoader {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 600
        return URLSessionLoader(configuration: configuration, maxResponseSize: maxResponseSize) { [self] request in
            try check(request)
        }
    }

    private func check(_ request: URLRequest) throws {
        let url = request.url ?? URL(fileURLWithPath: "/")
        guard !Self.isLoopback(url.host ?? "") else { return }
        stopped.withLock { $0.append(url) }
        throw NonLoopbackConnection(url: url)
    }

    /// Whether `host` is a loopback literal (dotted IPv4 in 127.0.0.0/8, or ::1) or `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil
            }
    }
}
