import Foundation
import MediaAssets

/// A fetch of a run of chunks, shared by every reader that needs one of its chunks.
///
/// It lives until every reader planned on it has collected its result or left; it is cancelled
/// only when all of them left before it finished.
struct RunFlight: Sendable {
    let id: UInt64
    let key: CacheKey
    let url: URL
    /// The content info the fetch validates against (`If-Range`).
    let info: VideoContentInfo
    let chunks: Range<Int>
    /// Readers planned on it that have neither collected the result nor left.
    var askers: Set<UInt64>
    /// Readers suspended until it finishes.
    var waiters: [UInt64: CheckedContinuation<[Data], Error>] = [:]
    var task: Task<Void, Never>?
    var result: Result<[Data], Error>?
}

/// What a reader waiting on a flight gets at once.
enum FlightWait: Sendable {
    /// Suspended until the flight finishes.
    case suspended
    /// The flight had finished: its result.
    case finished(Result<[Data], Error>)
    /// The reader was cancelled or had left; the task to cancel when it was the last asker.
    case left(Task<Void, Never>?)
}
