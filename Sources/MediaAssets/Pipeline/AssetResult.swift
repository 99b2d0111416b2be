import Foundation

/// Where a result came from.
public enum AssetSource: Sendable, Hashable, CustomStringConvertible {
    /// A decoded object kept in memory: nothing was read, decoded or processed.
    case memory
    /// Bytes found in a storage backend (a stored variant or original), decoded.
    case storage
    /// Downloaded (or revalidated with a 304) from the origin.
    case network
    /// A stale entry served without a fresh answer from the origin: under `stale-while-revalidate`
    /// (a background revalidation is under way) or `stale-if-error` (the origin failed).
    case stale

    public var description: String {
        switch self {
        case .memory: return "memory"
        case .storage: return "storage"
        case .network: return "network"
        case .stale: return "stale"
        }
    }
}

/// A pipeline's result: the value and where it came from.
public struct AssetResult<Value: Sendable>: Sendable {
    /// The decoded (and processed) value.
    public var value: Value
    /// Where it came from.
    public var source: AssetSource
    /// The metadata of the entry it came from (freshness, validators, content type).
    public var metadata: CacheMetadata
    /// The decoded original a processed value was made from, when this ask processed it (an app can
    /// keep both, as Navi's avatars do); `nil` for memory hits, stored variants and unprocessed values.
    public var original: Value?
    /// The variant's bytes as stored, when this ask made or read them (for `encodedVariant(for:…)`).
    var encoded: EncodedVariant?

    /// Creates a result.
    @inlinable
    public init(value: Value, source: AssetSource, metadata: CacheMetadata, original: Value? = nil) {
        self.value = value
        self.source = source
        self.metadata = metadata
        self.original = original
    }
}
