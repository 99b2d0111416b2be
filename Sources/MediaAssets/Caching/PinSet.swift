/// What a backend keeps from eviction: one key, or an asset with every key derived from it.
///
/// Pins are rules, not copies: an entry stored later under a covered key is pinned too, so an app
/// can pin its own avatar before it is downloaded, and a revalidated entry stays pinned.
public enum Pin: Sendable, Hashable, CustomStringConvertible {
    /// The entry under exactly this key.
    case key(CacheKey)
    /// The asset's entry and every entry derived from its key (see `EntrySelection.asset`).
    case asset(CacheKey)

    /// The key the pin names.
    public var key: CacheKey {
        switch self {
        case .key(let key), .asset(let key): return key
        }
    }

    /// Whether the pin covers the entry under `key`.
    package func covers(_ key: CacheKey) -> Bool {
        switch self {
        case .key(let pinned): return key == pinned
        case .asset(let asset): return key.isDerived(fromAsset: asset)
        }
    }

    /// The entries the pin covers, as a selection for `removeEntries(_:)`-style walks; nil for a
    /// single key (look it up instead).
    package var selection: EntrySelection? {
        switch self {
        case .key: return nil
        case .asset(let asset): return .asset(asset)
        }
    }

    public var description: String {
        switch self {
        case .key(let key): return ".key(\"\(key.rawValue.prefix(200))\")"
        case .asset(let key): return ".asset(\"\(key.rawValue.prefix(200))\")"
        }
    }
}

/// A set of pins that answers "is this key pinned?" in O(1) hash lookups per `@` or `#` in the key,
/// for backends that keep their own pins (the package's do; a user's backend can too).
///
/// Not thread-safe: a backend keeps it under its own lock.
package struct PinSet: Sendable, Hashable {
    /// Keys pinned one by one.
    package private(set) var keys: Set<CacheKey> = []
    /// Assets pinned with their derived keys.
    package private(set) var assets: Set<CacheKey> = []
    /// How many assets of each UTF-8 length are pinned: a key's prefixes of other lengths are
    /// never built, so a key with many separators costs no allocation per separator.
    private var assetLengths: [Int: Int] = [:]

    /// An empty set.
    package init() {}

    /// A set holding `pins`.
    package init(_ pins: some Sequence<Pin>) {
        for pin in pins { insert(pin) }
    }

    /// Whether no pin is held.
    package var isEmpty: Bool { keys.isEmpty && assets.isEmpty }

    /// Every pin held.
    package var pins: [Pin] { keys.map(Pin.key) + assets.map(Pin.asset) }

    /// Whether `pin` is held (as given: an asset pin does not hold a key pin of the same key).
    package func contains(_ pin: Pin) -> Bool {
        switch pin {
        case .key(let key): return keys.contains(key)
        case .asset(let key): return assets.contains(key)
        }
    }

    /// Whether any pin covers the entry under `key`.
    ///
    /// - Complexity: O(1) without asset pins; otherwise O(length of `key`).
    package func covers(_ key: CacheKey) -> Bool {
        if isEmpty { return false }
        if keys.contains(key) || assets.contains(key) { return true }
        guard !assets.isEmpty else { return false }
        return key.containsAssetPrefix { length in
            assetLengths[length] != nil && assets.contains(key.utf8Prefix(length))
        }
    }

    /// Adds `pin`; returns false if it was held already.
    @discardableResult
    package mutating func insert(_ pin: Pin) -> Bool {
        switch pin {
        case .key(let key):
            return keys.insert(key).inserted
        case .asset(let key):
            guard assets.insert(key).inserted else { return false }
            assetLengths[key.rawValue.utf8.count, default: 0] += 1
            return true
        }
    }

    /// Removes `pin`; returns false if it was not held.
    @discardableResult
    package mutating func remove(_ pin: Pin) -> Bool {
        switch pin {
        case .key(let key):
            return keys.remove(key) != nil
        case .asset(let key):
            guard assets.remove(key) != nil else { return false }
            let length = key.rawValue.utf8.count
            assetLengths[length] = assetLengths[length] == 1 ? nil : assetLengths[length].map { $0 - 1 }
            return true
        }
    }
}
