import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hops of one fetch as ``URLSessionLoader`` follows them: the URL of the hop under way, the request it
/// sends, and the rules a redirect must pass (``FetchPolicy/maxRedirects``, no loops).
///
/// A redirect keeps the request's method and headers, except that credentials (`Authorization`,
/// `Proxy-Authorization`, `Cookie`) are dropped when it leaves the origin (scheme, host and port) of the hop
/// it comes from, as browsers do.
struct RedirectChain {
    /// The URL of the hop under way, as the caller or a `Location` named it.
    private(set) var url: URL
    /// The request for `url`, never pinned.
    private var request: URLRequest
    private let policy: FetchPolicy
    private var visited: Set<String>
    private var redirects = 0

    private static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    init(request: URLRequest, url: URL, policy: FetchPolicy) {
        self.request = request
        self.url = url
        self.policy = policy
        visited = [Self.identity(of: url)]
    }

    /// The requests to try for this hop, in order: one per checked address for `http` (each pinned to its
    /// address, with the host's name in `Host`), else the request itself (libcurl resolves the name).
    func wireRequests(pinnedTo addresses: [IPAddress]) -> [URLRequest] {
        guard url.scheme?.lowercased() == "http", !addresses.isEmpty else { return [request] }
        let pinned = addresses.compactMap(pinned(to:))
        return pinned.isEmpty ? [request] : pinned
    }

    /// The request sent to `address` itself, naming the host in its `Host` header.
    private func pinned(to address: IPAddress) -> URLRequest? {
        guard let host = url.host, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return nil
        }
        let hostText = host.contains(":") ? "[\(host)]" : host
        components.percentEncodedHost = address.urlHost
        guard let pinnedURL = components.url else { return nil }
        var pinned = request
        pinned.url = pinnedURL
        pinned.setValue(url.port.map { "\(hostText):\($0)" } ?? hostText, forHTTPHeaderField: "Host")
        return pinned
    }

    /// Moves on to the redirect whose `Location` is `location` (relative to the hop's URL).
    ///
    /// - Throws: `AssetsError.fetchRefused` with `.redirectLimit` past ``FetchPolicy/maxRedirects``, or
    ///   `.redirectLoop` for a URL this fetch already visited; `URLError(.badURL)` for a `Location` that is
    ///   not a URL.
    mutating func follow(_ location: String) throws {
        guard let target = URL(string: location, relativeTo: url)?.absoluteURL else { throw URLError(.badURL) }
        redirects += 1
        guard redirects <= policy.maxRedirects else {
            throw AssetsError.fetchRefused(url: target, refusal: .redirectLimit(policy.maxRedirects))
        }
        guard visited.insert(Self.identity(of: target)).inserted else {
            throw AssetsError.fetchRefused(url: target, refusal: .redirectLoop)
        }
        if Self.origin(of: target) != Self.origin(of: url) {
            for name in Self.credentialHeaders { request.setValue(nil, forHTTPHeaderField: name) }
        }
        request.url = target
        url = target
    }

    /// A URL as loops are told apart: without its fragment, which never reaches the server.
    private static func identity(of url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(FetchPolicy.normalizedHost(url.host ?? "")):\(port)"
    }
}
