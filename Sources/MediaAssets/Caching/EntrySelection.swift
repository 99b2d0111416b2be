/// Which entries a batch removal takes.
///
/// The shared API the lead decided; the storage branch adds the same enum to CacheBackend.swift with
/// the `removeEntries(_:)` requirement. This file only lets the redis branch build alone: drop it at merge.
public enum EntrySelection: Sendable, Hashable, CustomStringConvertible {
    /// Entries whose key starts with the prefix (a video resource's chunks and record: "<key>#").
    case keyPrefix(String)
    /// Entries stored through `.hybrid(t)` for partition `t` (their `metadata.partition` is `t`).
    case partition(LRUCacheType)

    /// Whether the entry stored under `key` through `partition` (its `metadata.partition`) is selected.
    public func contains(key: CacheKey, partition: LRUCacheType?) -> Bool {
        switch self {
        case .keyPrefix(let prefix): return key.rawValue.utf8.starts(with: prefix.utf8)
        case .partition(let selected): return partition == selected
        }
    }

    public var description: String {
        switch self {
        case .keyPrefix(let prefix): return ".keyPrefix(\"\(prefix.prefix(200))\")"
        case .partition(let partition): return ".partition(\(partition.rawValue))"
        }
    }
}
