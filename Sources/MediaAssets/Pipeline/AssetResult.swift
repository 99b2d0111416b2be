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
    /// Where its bytes came from: where the work that made it found them.
    ///
    /// An ask that joined work under way (`isJoined`) gets that work's source: twenty concurrent asks for one
    /// cold image share one download, and all twenty say `.network`, one with `isJoined == false` (the ask that
    /// started it) and nineteen with `isJoined == true`. The source stays the bytes' provenance for every ask
    /// (whether they are fresh, stale or from the network decides what a service may send and cache); the
    /// results with `source == .network` and `!isJoined` are the downloads.
    public var source: AssetSource
    /// The metadata of the entry it came from (freshness, validators, content type).
    public var metadata: CacheMetadata
    /// The decoded original a processed value was made from, when this ask processed it (an app can
    /// keep both, as avatars do); `nil` for memory hits, stored variants and unprocessed values.
    @usableFromInline package var original: Value?
    /// Whether this ask joined work another ask had started (a download, decode or render under way) instead of
    /// starting its own: its value is the one that work made, and `PipelineStatistics.joins` counted the join.
    /// `false` for the ask that started the work, and for memory hits.
    public var isJoined: Bool
    /// The variant's bytes as stored, when this ask made or read them (for `encodedVariant(for:…)`).
    var encoded: EncodedVariant?

    /// Creates a result.
    @inlinable
    package init(
        value: Value, source: AssetSource, metadata: CacheMetadata, original: Value? = nil, isJoined: Bool = false
    ) {
        self.value = value
        self.source = source
        self.metadata = metadata
        self.original = original
        self.isJoined = isJoined
    }

    /// This result as `ask` received it: joined when the ask joined work under way.
    func joined(_ ask: AskJoins) -> AssetResult {
        var result = self
        result.isJoined = ask.joined
        return result
    }
}
