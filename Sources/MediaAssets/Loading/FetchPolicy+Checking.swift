import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension FetchPolicy {
    /// Whether connections need their addresses resolved and checked.
    var checksAddresses: Bool { !refusedAddresses.isEmpty }

    /// A host as policies compare it: lowercased, without a trailing dot or IPv6 brackets.
    static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// Whether `pattern` (`example.com`, or `.example.com` for it and every host under it) matches `host`, a
    /// normalized host.
    private static func matches(_ pattern: String, _ host: String) -> Bool {
        let pattern = normalizedHost(pattern)
        guard pattern.hasPrefix(".") else { return host == pattern }
        return host.hasSuffix(pattern) || host == pattern.dropFirst()
    }

    /// Checks what `url` says without resolving it: its scheme and host name.
    ///
    /// - Throws: `AssetsError.fetchRefused` with `.scheme` or `.host`.
    func checkName(of url: URL) throws(AssetsError) {
        let scheme = url.scheme?.lowercased() ?? ""
        guard allowedSchemes?.contains(where: { $0.lowercased() == scheme }) ?? true else {
            throw .fetchRefused(url: url, refusal: .scheme(scheme))
        }
        let host = Self.normalizedHost(url.host ?? "")
        let allowed = allowedHosts.map { $0.contains { Self.matches($0, host) } } ?? true
        guard allowed, !refusedHosts.contains(where: { Self.matches($0, host) }) else {
            throw .fetchRefused(url: url, refusal: .host(host))
        }
    }

    /// Checks every address a connection to `url` may reach.
    ///
    /// - Throws: `AssetsError.fetchRefused` with `.address`, naming the first refused one.
    func checkAddresses(_ addresses: [IPAddress], of url: URL) throws(AssetsError) {
        for address in addresses {
            guard let addressClass = address.addressClass, refusedAddresses.contains(addressClass),
                !allowedAddressRanges.contains(where: { $0.contains(address) })
            else { continue }
            let refusal = FetchRefusal.address(
                host: Self.normalizedHost(url.host ?? ""), address: address.description, rule: addressClass)
            throw .fetchRefused(url: url, refusal: refusal)
        }
    }

    /// Checks `url` for a connection (scheme, host, then every address it resolves to when this policy checks
    /// addresses) and returns the checked addresses, in the resolver's order (empty when none were checked).
    ///
    /// - Throws: `AssetsError.fetchRefused`, `URLError(.cannotFindHost)` when the name does not resolve, or
    ///   `CancellationError`.
    func admit(_ url: URL) async throws -> [IPAddress] {
        try checkName(of: url)
        guard checksAddresses else { return [] }
        let addresses = try await HostResolver.addresses(of: Self.normalizedHost(url.host ?? ""))
        try checkAddresses(addresses, of: url)
        return addresses
    }
}

/// Resolves host names with `getaddrinfo`, on threads of its own: a lookup blocks for as long as DNS takes,
/// so it never runs on the cooperative pool.
enum HostResolver {
    private static let queue = DispatchQueue(label: "MediaAssets.HostResolver", attributes: .concurrent)

    /// Every address `host` resolves to, in the resolver's order of preference; a numeric host without lookup.
    ///
    /// - Throws: `URLError(.cannotFindHost)` when it does not resolve, `CancellationError` when the task is
    ///   cancelled (the lookup itself finishes in the background).
    static func addresses(of host: String) async throws -> [IPAddress] {
        if let numeric = IPAddress.numeric(host) { return [numeric] }
        let lookup = Lookup()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard lookup.begin(continuation) else { return }
                queue.async { lookup.finish(Result { try resolve(host) }) }
            }
        } onCancel: {
            lookup.finish(.failure(CancellationError()))
        }
    }

    private static func resolve(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &results)
        defer { if results != nil { freeaddrinfo(results) } }
        guard status == 0 else {
            let reason = String(cString: gai_strerror(status))
            throw URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: "\(host): \(reason)"])
        }
        var addresses: [IPAddress] = []
        var next = results
        while let info = next {
            if let address = info.pointee.ai_addr.flatMap({ IPAddress(UnsafePointer($0)) }),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            next = info.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw URLError(.cannotFindHost) }
        return addresses
    }

    /// One lookup's continuation, resumed once: by the lookup or by cancellation, whichever comes first.
    private final class Lookup: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<[IPAddress], Error>?, isDone: Bool)>((nil, false))

        /// Keeps `continuation`; false (having resumed it) when the lookup was already cancelled.
        func begin(_ continuation: CheckedContinuation<[IPAddress], Error>) -> Bool {
            let cancelled = state.withLock { state -> Bool in
                if state.isDone { return true }
                state.continuation = continuation
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        func finish(_ result: Result<[IPAddress], Error>) {
            let continuation = state.withLock { state in
                defer { state = (nil, true) }
                return state.continuation
            }
            continuation?.resume(with: result)
        }
    }
}
