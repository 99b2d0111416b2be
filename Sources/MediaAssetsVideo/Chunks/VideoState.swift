import Foundation
import MediaAssets

/// What a `VideoUtil` knows of one resource while it runs.
struct ResourceState: Sendable {
    var info: VideoContentInfo
    /// Whether chunks are cached at all (the resource fits the storage budget).
    var isCacheable: Bool
    /// Chunks this util stored and has not seen go missing, to count evictions when they do.
    var storedChunks: Set<Int> = []
}

/// The mutable state of a `VideoUtil`, behind one `Mutex`; never held across I/O.
struct VideoState: Sendable {
    /// Bounds the resources remembered in memory; the meta records keep the rest.
    static let maximumResources = 1_024

    var resources: [CacheKey: ResourceState] = [:]
    var statistics = VideoStatistics()
    /// Stream producers waiting for their consumer to take a window.
    var parkedProducers = 0

    mutating func _remember(_ key: CacheKey, _ resource: ResourceState) {
        if resources[key] == nil, resources.count >= Self.maximumResources { resources.removeAll() }
        resources[key] = resource
    }
}
