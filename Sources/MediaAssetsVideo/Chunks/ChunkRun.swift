import Foundation
import MediaAssets

/// One chunk of one resource: the key its fetch is coalesced under in the util's `RequestPool`.
struct ChunkID: Sendable, Hashable {
    let resource: CacheKey
    let index: Int
}

/// A contiguous run of missing chunks fetched with one Range request.
struct ChunkRun: Sendable {
    let key: CacheKey
    let asset: AssetRequest
    /// The content info the fetch validates against (`If-Range`).
    let info: VideoContentInfo
    let chunks: Range<Int>

    /// Cuts ascending chunk ids into contiguous runs: the flights a reader starts for what it misses.
    static func runs(of ids: [ChunkID]) -> [[ChunkID]] {
        var runs: [[ChunkID]] = []
        for id in ids {
            if let last = runs.last?.last, last.resource == id.resource, last.index + 1 == id.index {
                runs[runs.count - 1].append(id)
            } else {
                runs.append([id])
            }
        }
        return runs
    }
}
