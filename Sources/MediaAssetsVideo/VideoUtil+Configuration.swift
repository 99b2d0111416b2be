import MediaAssets

extension VideoUtil {
    /// How a `VideoUtil` cuts and stores videos.
    public struct Configuration: Sendable {
        /// The size of every chunk but the last, in bytes; values below 1 count as 1.
        public var chunkSize: Int
        /// Where chunks and meta records are stored.
        public var storageType: StorageType
        /// Resources larger than this many bytes play through uncached.
        ///
        /// `nil` derives it from the backend of `storageType`: a `DiskCache`'s `sizeLimit`, a
        /// `MemoryCache`'s `costLimit`, a `HybridBackend`'s storage; any other backend is unlimited.
        /// Set it explicitly to cache resources that must stream through a smaller cache (evicting
        /// as they go).
        public var maxCachedResourceSize: Int?

        /// Creates a configuration: 1 MiB chunks on disk, the budget derived from the backend.
        public init(chunkSize: Int = 1 << 20, storageType: StorageType = .disk, maxCachedResourceSize: Int? = nil) {
            self.chunkSize = chunkSize
            self.storageType = storageType
            self.maxCachedResourceSize = maxCachedResourceSize
        }
    }

    /// The byte budget of `backend`, or `nil` when it has none this util knows of.
    static func budget(of backend: any CacheBackend) -> Int? {
        switch backend {
        case let disk as DiskCache: return disk.configuration.sizeLimit
        case let memory as MemoryCache: return memory.limits.costLimit
        case let hybrid as HybridBackend: return budget(of: hybrid.storage) ?? budget(of: hybrid.memory)
        default: return nil
        }
    }
}
