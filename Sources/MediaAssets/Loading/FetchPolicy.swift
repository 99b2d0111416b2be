import Foundation

/// Which fetches a manager may make: the schemes, the hosts, the addresses a connection may reach, how many
/// redirects one fetch follows and how many downloads run at once per host.
///
/// An app fetches what its own code names, and its network is its user's: ``app``, the default, allows any
/// address. A service fetches URLs that its users give, and must never reach the machines beside it
/// (server-side request forgery: a cloud's metadata service at 169.254.169.254, an admin port on
/// 127.0.0.1, a database on 10.0.0.5): ``service`` refuses every address that is not public, on every
/// connection, redirects included.
///
/// ```swift
/// var configuration = AssetsManager.Configuration()
/// configuration.fetchPolicy = .service                        // a service: public addresses only
/// configuration.fetchPolicy = .service.allowing(.loopback)    // its tests, against a loopback origin
/// ```
///
/// A refused fetch throws ``AssetsError/fetchRefused(url:refusal:)`` naming the URL, the address and the
/// rule, before any connection is made; nothing is stored.
///
/// ## What is checked, and when
///
/// Every connection of a fetch, the first and each redirect's, is checked in this order: its scheme
/// (``allowedSchemes``), its host name (``allowedHosts``, ``refusedHosts``), then, when ``refusedAddresses``
/// is not empty, every address the host resolves to (a host with one refused address is refused). Redirects
/// are followed by the loader one at a time, never by URLSession, so each one is checked before its connection
/// opens; a redirect back to a URL already visited is a loop, and more than ``maxRedirects`` is refused.
///
/// ## What is guaranteed
///
/// ``URLSessionLoader`` resolves the host itself (`getaddrinfo`, off the cooperative pool) and checks the
/// addresses before it hands the request to URLSession. For `http` it then pins the connection: the request
/// goes to the checked address itself (with the original `Host` header), so libcurl makes no resolution of its
/// own and the address connected to is the one checked. For `https` the certificate must match the name, so
/// URLSession on Linux (libcurl) resolves the name again when it connects: a DNS server that answers a public
/// address to the check and a private one a moment later (DNS rebinding with a zero TTL) can still steer an
/// `https` connection. Numeric hosts (`https://10.0.0.1`, `https://2130706433`, `https://[::ffff:a00:1]`) are
/// read as the addresses they are and never resolve. Where rebinding matters, run the service behind an egress
/// proxy or firewall that enforces the same rule at connect time; this policy is the first line, not the last.
///
/// A loader other than ``URLSessionLoader`` gets the checks of ``DataLoading/load(_:policy:progress:)``'s
/// default implementation: the requested URL before the load and the URL that answered after it (a redirect
/// that loader followed itself is checked only once it answered).
public struct FetchPolicy: Sendable, Hashable {
    /// The URL schemes a fetch or redirect may use (compared without case), or `nil` for any the loader handles
    /// (an app's loader may read `file:` or a scheme of its own). ``service`` allows `http` and `https`; a
    /// service that must not send anything in clear text keeps `https` alone.
    public var allowedSchemes: Set<String>?
    /// The hosts a fetch or redirect may name, or `nil` for any. An entry matches that host exactly
    /// (`cdn.example.com`), or with a leading dot every host under it as well (`.example.com`); names compare
    /// without case or a trailing dot.
    public var allowedHosts: Set<String>?
    /// Hosts refused whatever ``allowedHosts`` says, written as its entries are.
    public var refusedHosts: Set<String>
    /// The kinds of address no connection may reach, checked after name resolution.
    public var refusedAddresses: Set<AddressClass>
    /// Networks a connection may reach whatever ``refusedAddresses`` says: a service's own image store at
    /// `10.20.0.5`, or its test origin at `127.0.0.1`.
    public var allowedAddressRanges: Set<AddressRange>
    /// The most redirects one fetch follows; one more is refused (``FetchRefusal/redirectLimit(_:)``).
    public var maxRedirects: Int
    /// The most downloads of one manager to one host (its name and port) at once, within the manager's
    /// `StageLimits.fetches`; `nil` leaves only that limit.
    public var maxConnectionsPerHost: Int?

    /// Creates a policy; the defaults are ``app``'s.
    public init(
        allowedSchemes: Set<String>? = nil,
        allowedHosts: Set<String>? = nil,
        refusedHosts: Set<String> = [],
        refusedAddresses: Set<AddressClass> = [],
        allowedAddressRanges: Set<AddressRange> = [],
        maxRedirects: Int = 10,
        maxConnectionsPerHost: Int? = nil
    ) {
        self.allowedSchemes = allowedSchemes
        self.allowedHosts = allowedHosts
        self.refusedHosts = refusedHosts
        self.refusedAddresses = refusedAddresses
        self.allowedAddressRanges = allowedAddressRanges
        self.maxRedirects = max(0, maxRedirects)
        self.maxConnectionsPerHost = maxConnectionsPerHost.map { max(1, $0) }
    }

    /// For apps, the default: any scheme the loader handles, any host and address, up to 10 redirects.
    public static let app = FetchPolicy()

    /// For services that fetch URLs their users give: `http` and `https` to public addresses only (every
    /// ``AddressClass`` is refused), up to 5 redirects, and at most 6 downloads per host at once.
    public static let service = FetchPolicy(
        allowedSchemes: ["http", "https"], refusedAddresses: Set(AddressClass.allCases), maxRedirects: 5,
        maxConnectionsPerHost: 6)

    /// This policy with `classes` allowed again: `.service.allowing(.loopback)` for a service's tests
    /// against a loopback origin.
    public func allowing(_ classes: AddressClass...) -> FetchPolicy {
        var policy = self
        policy.refusedAddresses.subtract(classes)
        return policy
    }

    /// This policy with `ranges` allowed whatever ``refusedAddresses`` says:
    /// `.service.allowing(AddressRange("10.20.0.5")!)`.
    public func allowing(_ ranges: AddressRange...) -> FetchPolicy {
        var policy = self
        policy.allowedAddressRanges.formUnion(ranges)
        return policy
    }

    /// A network in CIDR notation (`10.20.0.0/16`, `fd00::/8`), or one address (`10.20.0.5`).
    public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
        /// The network's address, its bits past `prefixLength` cleared.
        let network: IPAddress
        /// How many leading bits an address must share with `network`.
        let prefixLength: Int

        /// Reads `text`: an IPv4 or IPv6 address, optionally followed by `/` and a prefix length (32 or 128
        /// when absent); `nil` for anything else.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(literal: String(parts[0])) else { return nil }
            let bits = address.bytes.count * 8
            var length = bits
            if parts.count == 2 {
                guard (1...3).contains(parts[1].count), parts[1].allSatisfy(\.isASCII), let prefix = Int(parts[1]),
                    (0...bits).contains(prefix)
                else { return nil }
                length = prefix
            }
            network = address.masked(to: length)
            prefixLength = length
        }

        /// Whether `address` is in this network (an IPv4-mapped IPv6 address counts as its IPv4 address).
        func contains(_ address: IPAddress) -> Bool {
            let candidate = network.isV4 ? (address.mappedV4 ?? address) : address
            guard candidate.bytes.count == network.bytes.count else { return false }
            return candidate.masked(to: prefixLength) == network
        }

        public var description: String { "\(network)/\(prefixLength)" }
    }

    /// A kind of address that is not on the public internet.
    public enum AddressClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// This host: 127.0.0.0/8 and ::1.
        case loopback
        /// Private networks: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, carrier-grade NAT 100.64.0.0/10
        /// (where some clouds keep their metadata service), fc00::/7 and the old site-local fec0::/10.
        case privateNetwork
        /// The link: 169.254.0.0/16 (the metadata service of most clouds at 169.254.169.254) and fe80::/10.
        case linkLocal
        /// 224.0.0.0/4 and ff00::/8.
        case multicast
        /// "This host" and "this network": 0.0.0.0/8 (Linux connects 0.0.0.0 to itself) and ::.
        case unspecified
        /// Reserved ranges: 240.0.0.0/4 with the broadcast address, 192.0.0.0/24, the benchmarking
        /// 198.18.0.0/15, and IPv6's discard-only 100::/64 and documentation 2001:db8::/32.
        case reserved

        public var description: String {
            switch self {
            case .loopback: return "a loopback address"
            case .privateNetwork: return "a private-network address"
            case .linkLocal: return "a link-local address"
            case .multicast: return "a multicast address"
            case .unspecified: return "an unspecified address"
            case .reserved: return "a reserved address"
            }
        }
    }
}

/// Why a fetch policy refused a fetch, as ``AssetsError/fetchRefused(url:refusal:)`` carries it.
public enum FetchRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The scheme is not in ``FetchPolicy/allowedSchemes``.
    case scheme(String)
    /// The host is not in ``FetchPolicy/allowedHosts``, or is in ``FetchPolicy/refusedHosts``.
    case host(String)
    /// The host resolves to (or is) `address`, of a class in ``FetchPolicy/refusedAddresses``.
    case address(host: String, address: String, rule: FetchPolicy.AddressClass)
    /// The fetch would follow more redirects than ``FetchPolicy/maxRedirects``.
    case redirectLimit(Int)
    /// A redirect leads back to a URL this fetch already visited.
    case redirectLoop

    public var description: String {
        switch self {
        case .scheme(let scheme):
            return "its scheme '\(scheme)' is not in FetchPolicy.allowedSchemes"
        case .host(let host):
            return "its host \(host) is not allowed by FetchPolicy.allowedHosts or refusedHosts"
        case let .address(host, address, rule):
            let name = host == address ? address : "\(host) resolves to \(address), which"
            return "\(name) is \(rule), refused by FetchPolicy.refusedAddresses (.\(rule.rawValue)); "
                + "allow it with FetchPolicy.allowing(.\(rule.rawValue)) if this fetch is meant to reach it"
        case .redirectLimit(let limit):
            return "it redirects more than FetchPolicy.maxRedirects (\(limit)) times"
        case .redirectLoop:
            return "it redirects back to a URL it already visited (a redirect loop)"
        }
    }
}
