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
    /// Stream producers waiting for their consumer to take what it was given.
    var parkedProducers = 0
    /// The fetch in flight for each chunk, joined by every reader of the chunk.
    var fetches: [ChunkID: RangeFetch] = [:]
    /// Every fetch whose stores are not done yet, by identity, with the chunks it was registered for.
    var activeFetches: [ObjectIdentifier: (fetch: RangeFetch, chunks: Range<Int>)] = [:]

    mutating func _remember(_ key: CacheKey, _ resource: ResourceState) {
        if resources[key] == nil, resources.count >= Self.maximumResources { resources.removeAll() }
        resources[key] = resource
    }

    /// Registers `fetch` for its chunks `chunks`.
    mutating func _register(_ fetch: RangeFetch, chunks: Range<Int>) {
        for index in chunks { fetches[ChunkID(resource: fetch.key, index: index)] = fetch }
        activeFetches[ObjectIdentifier(fetch)] = (fetch, chunks)
    }

    /// Forgets `fetch` for the chunks it is still registered for; with `keepsActive`, its stores are still
    /// awaited by `waitForPendingStores`.
    mutating func _unregister(_ fetch: RangeFetch, keepsActive: Bool = false) {
        guard let chunks = activeFetches[ObjectIdentifier(fetch)]?.chunks else { return }
        for index in chunks where fetches[ChunkID(resource: fetch.key, index: index)] === fetch {
            fetches[ChunkID(resource: fetch.key, index: index)] = nil
        }
        if keepsActive {
            activeFetches[ObjectIdentifier(fetch)] = (fetch, 0..<0)
        } else {
            activeFetches[ObjectIdentifier(fetch)] = nil
        }
    }
}
