import Foundation

/// Where a Redis server listens: a TCP host and port, or a Unix socket.
public enum RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A TCP address; `host` is a name or a numeric IPv4/IPv6 address.
    case tcp(host: String, port: Int)
    /// A Unix domain socket path.
    case unix(path: String)

    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): return "unix:\(path)"
        }
    }

    /// Parses `host:port` (as in CLUSTER replies and `--redis-cluster` lists; `[v6]:port` too).
    public init(hostAndPort text: String) throws(RedisError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]),
            (1...65_535).contains(port)
        else { throw .invalidAddress(text, reason: "expected host:port with a port from 1 to 65535") }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .invalidAddress(text, reason: "the host is empty") }
        self = .tcp(host: host, port: port)
    }
}

/// A parsed Redis address: the endpoint and the credentials and database it names.
package struct RedisAddress: Sendable, Hashable {
    /// Where to connect.
    package var endpoint: RedisEndpoint
    /// The ACL user, if the address names one (`redis://user:password@…`).
    package var user: String?
    /// The password, if any.
    package var password: String?
    /// The database number (`redis://host:port/2`), 0 by default.
    package var database: Int

    /// Parses `redis://[[user]:password@]host[:port][/db]` or `unix:///path[?db=N]`.
    package init(_ text: String) throws(RedisError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalidAddress(text, reason: "not a URL")
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
        password = components.password.flatMap { $0.removingPercentEncoding }
        let databaseText: String?
        switch scheme {
        case "redis":
            guard let host = components.host, !host.isEmpty else { throw .invalidAddress(text, reason: "no host") }
            let port = components.port ?? 6379
            guard (1...65_535).contains(port) else { throw .invalidAddress(text, reason: "port \(port) out of range") }
            endpoint = .tcp(host: host, port: port)
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            databaseText = path.isEmpty ? nil : path
        case "unix":
            guard !components.path.isEmpty else { throw .invalidAddress(text, reason: "no socket path") }
            endpoint = .unix(path: components.path)
            databaseText = components.queryItems?.first { $0.name == "db" }?.value
        default:
            throw .invalidAddress(text, reason: "the scheme \(scheme) is neither redis nor unix (TLS is not supported)")
        }
        if let databaseText {
            guard let number = Int(databaseText), number >= 0 else {
                throw .invalidAddress(text, reason: "the database '\(databaseText)' is not a number")
            }
            database = number
        } else {
            database = 0
        }
    }
}
