/// Where the `AssetsManager` keeps an entry: the key into its `BackendRegistry`.
///
/// The default registry holds one memory partition per `LRUCacheType`, one disk cache, and
/// resolves `.hybrid(t)` to the memory partition `t` in front of the disk cache. Anything else
/// (a SQLite database, a user's Redis) is registered under `.custom(name)`, or in place of a
/// default one.
public enum StorageType: Sendable, Hashable, CustomStringConvertible {
    /// An in-memory LRU partition; each partition has its own limits and evicts only its own entries.
    case lru(LRUCacheType)
    /// The persistent disk cache.
    case disk
    /// The memory partition in front of the disk cache: reads fall through and promote, writes go to both.
    case hybrid(LRUCacheType)
    /// A backend an app registered under its own name, such as `.custom("sqlite")`.
    case custom(String)

    public var description: String {
        switch self {
        case .lru(let type): return ".lru(\(type.rawValue))"
        case .disk: return ".disk"
        case .hybrid(let type): return ".hybrid(\(type.rawValue))"
        case .custom(let name): return ".custom(\(name))"
        }
    }
}

/// The name of an in-memory LRU partition.
///
/// The package declares `.image`, `.lottie` and `.video`; an app adds its own partition with a
/// static member and registers a `MemoryCache` for it (or lists it in the manager's configuration):
///
/// ```swift
/// extension LRUCacheType { static let fonts = LRUCacheType(rawValue: "fonts") }
/// manager.register(MemoryCache(limits: .init(costLimit: 8 << 20)), for: .lru(.fonts))
/// ```
public struct LRUCacheType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The partition's name.
    public let rawValue: String

    /// Creates a partition name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a partition name from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Decoded images and styled variants.
    public static let image = LRUCacheType(rawValue: "image")
    /// Parsed Lottie animations.
    public static let lottie = LRUCacheType(rawValue: "lottie")
    /// Video chunks kept in memory.
    public static let video = LRUCacheType(rawValue: "video")
}

extension StorageType {
    /// The memory partition a util keeps decoded objects in for this storage type: `.lru(t)` for
    /// `.lru(t)` and `.hybrid(t)`, none for byte-only storage (`.disk`, `.custom`), where every
    /// hit is decoded anew.
    public var memoryPartition: StorageType? {
        switch self {
        case .lru(let type), .hybrid(let type): return .lru(type)
        case .disk, .custom: return nil
        }
    }

    /// Where this storage type keeps bytes, to read them without a memory promotion: `.disk` for
    /// `.hybrid(t)`, the storage type itself otherwise.
    package var byteStorage: StorageType {
        if case .hybrid = self { return .disk }
        return self
    }
}
