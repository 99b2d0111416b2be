import Foundation

/// A request for an asset: where it lives, which version, how urgently, and how to use the cache.
public struct AssetRequest: Sendable, Hashable {
    /// Where the asset is fetched from.
    public var url: URL
    /// A server-given version of the content (a content hash, say): part of
    /// the cache key, so a new version at the same URL is a new fetch.
    public var version: String?
    /// How urgently to fetch it.
    public var priority: Priority
    /// How to use the cache for this request.
    public var cachePolicy: CachePolicy
    /// Extra request headers.
    ///
    /// Credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) and headers that only condition or
    /// slice a request (`Range`, `If-…`, `Cache-Control`, `Pragma`) are not part of the cache key; any other
    /// header is, because it may choose what the server sends (`Accept: image/avif` against a server that
    /// answers `Vary: Accept`). A response that varies on a header the key leaves out is not stored.
    public var headers: [String: String]
    /// The key when set explicitly; otherwise the manager's key factory derives it from the URL.
    public var key: CacheKey?

    /// Creates a request.
    public init(
        url: URL,
        version: String? = nil,
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache,
        headers: [String: String] = [:],
        key: CacheKey? = nil
    ) {
        self.url = url
        self.version = version
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.headers = headers
        self.key = key
    }

    /// How urgently a request is fetched.
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Work nobody waits for, such as prefetching far ahead.
        case veryLow
        /// Prefetching.
        case low
        /// What a screen shows now (the default).
        case normal
        /// What the user just asked for.
        case high
        /// What blocks the user.
        case veryHigh

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The task priority work for a request of this priority runs at: five distinct priorities, in the
        /// same order (`.background`, `.low`, `.medium`, `.high`, and above `.high` the user-interactive
        /// level, 33), so that tasks rank as their requests do.
        package var taskPriority: TaskPriority {
            switch self {
            case .veryLow: return .background
            case .low: return .low
            case .normal: return .medium
            case .high: return .high
            case .veryHigh: return Self.userInteractive
            }
        }

        /// The task priority above `.high` (Dispatch's user-interactive class).
        static let userInteractive = TaskPriority(rawValue: 33)
    }

    /// How a request uses the cache.
    public enum CachePolicy: Sendable, Hashable {
        /// A fresh cached entry is used as is; a stale one is revalidated (a 304 keeps its bytes).
        case useCache
        /// The cached entry is always revalidated with the server before use.
        case revalidate
        /// The cache is not read; the response replaces what was cached.
        case reload
        /// Only the cache is read; a miss throws `AssetsError.notCached`.
        case cacheOnly

        /// Whether a cached entry may answer at `date` without asking the server: `.useCache`
        /// takes a fresh one, `.cacheOnly` any, `.reload` and `.revalidate` none.
        package func accepts(_ entry: CacheEntry, at date: Date) -> Bool {
            switch self {
            case .useCache: return entry.isFresh(at: date)
            case .cacheOnly: return true
            case .reload, .revalidate: return false
            }
        }

        /// `accepts(_:at:)`, reading `clock` only when the answer depends on the date (memory hits read
        /// no clock for entries without a freshness lifetime).
        func accepts(_ entry: CacheEntry, clock: () -> Date) -> Bool {
            switch self {
            case .useCache: return entry.freshUntil.map { $0 > clock() } ?? true
            case .cacheOnly: return true
            case .reload, .revalidate: return false
            }
        }
    }
}

extension AssetRequest {
    /// Request headers that never choose a representation: credentials, conditions and ranges.
    static let unkeyedHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "range", "if-match", "if-none-match", "if-modified-since",
        "if-unmodified-since", "if-range", "cache-control", "pragma",
    ]

    /// The explicit headers that are part of the cache key (all but ``unkeyedHeaders``): names lowercased,
    /// values trimmed, sorted by name.
    var keyedHeaders: [(name: String, value: String)] {
        guard !headers.isEmpty else { return [] }
        return headers.compactMap { name, value -> (name: String, value: String)? in
            let name = name.lowercased()
            guard !Self.unkeyedHeaders.contains(name) else { return nil }
            return (name, value.trimmingCharacters(in: .whitespaces))
        }
        .sorted { $0.name < $1.name }
    }

    /// The identifier of the keyed headers in a cache key, `headers(accept=image%2Fwebp;…)`, or `nil` when
    /// there are none. Anything but letters, digits and `-._~*+,:/ ` is percent-encoded, so the text never
    /// holds the `@` and `#` that derived keys append with.
    var keyedHeadersIdentifier: String? {
        let headers = keyedHeaders
        guard !headers.isEmpty else { return nil }
        let fields = headers.map { Self.keyText($0.name) + "=" + Self.keyText($0.value) }
        return "headers(" + fields.joined(separator: ";") + ")"
    }

    private static let keyTextAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~*+,:/ "))

    private static func keyText(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: keyTextAllowed) ?? ""
    }
}

/// Turns a request's URL into the text of its cache key.
///
/// The default is the absolute URL. Signed or tokenised URLs should drop the parts that change
/// between requests for the same content, or every request is a miss:
/// ```swift
/// configuration.keyFactory = .removingQueryItems(["token", "signature", "expires"])
/// ```
public struct CacheKeyFactory: Sendable {
    private let makeKey: @Sendable (URL) -> String

    /// Creates a factory from a function.
    public init(_ makeKey: @escaping @Sendable (URL) -> String) {
        self.makeKey = makeKey
    }

    /// The key text for `url`.
    package func key(for url: URL) -> String { makeKey(url) }

    /// The absolute URL without its fragment (a fragment never reaches the server, and `#` ends a
    /// key where chunk keys begin).
    public static let absoluteURL = CacheKeyFactory { url in
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        components.fragment = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// The absolute URL without the named query items (matched case-insensitively) and its fragment.
    public static func removingQueryItems(_ names: Set<String>) -> CacheKeyFactory {
        let lowercased = Set(names.map { $0.lowercased() })
        return CacheKeyFactory { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let items = components.queryItems
            else { return url.absoluteString }
            let kept = items.filter { !lowercased.contains($0.name.lowercased()) }
            components.queryItems = kept.isEmpty ? nil : kept
            components.fragment = nil
            return components.url?.absoluteString ?? url.absoluteString
        }
    }
}
