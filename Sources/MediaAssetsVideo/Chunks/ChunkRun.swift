import Foundation
import MediaAssets

/// One chunk of one resource: the key of the fetch registered for it.
struct ChunkID: Sendable, Hashable {
    let resource: CacheKey
    let index: Int
}

extension Range<Int> {
    /// The contiguous runs of the ascending `indices`.
    static func runs(of indices: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for index in indices {
            if let last = runs.last, last.upperBound == index {
                runs[runs.count - 1] = last.lowerBound..<(index + 1)
            } else {
                runs.append(index..<(index + 1))
            }
        }
        return runs
    }
}
