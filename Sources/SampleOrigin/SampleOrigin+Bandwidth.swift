import Foundation
import Synchronization

extension SampleOrigin {
    /// Limits the body bytes all connections send together to `bytesPerSecond` (`nil`: unlimited), as one
    /// shared link does: a prefetch and a display downloading at once compete for it.
    ///
    /// Bodies then go out in pieces of at most ``BandwidthLimit/pieceSize`` bytes, each waiting for its turn
    /// on the link in the order the pieces were ready, so concurrent bodies share the rate about evenly.
    /// Takes effect for pieces sent from now on.
    public func setBandwidthLimit(bytesPerSecond: Int?) {
        bandwidth.setRate(bytesPerSecond.map { max(1, $0) })
    }
}

/// The link all of an origin's bodies share when a bandwidth limit is set: it hands each piece a time to go.
final class BandwidthLimit: Sendable {
    /// The largest piece a paced body sends at once.
    static let pieceSize = 16 * 1024

    private struct State {
        var bytesPerSecond: Int?
        /// When the link is free again after the pieces already given a time.
        var freeAt = ContinuousClock.now
    }

    private let state = Mutex(State())

    /// Whether bodies are paced now.
    var isLimited: Bool { state.withLock { $0.bytesPerSecond != nil } }

    func setRate(_ bytesPerSecond: Int?) {
        state.withLock { state in
            state.bytesPerSecond = bytesPerSecond
            state.freeAt = ContinuousClock.now
        }
    }

    /// Takes `count` bytes' time on the link; returns how long to wait before sending them.
    func reserve(_ count: Int) -> Duration {
        state.withLock { state in
            guard let rate = state.bytesPerSecond else { return .zero }
            let now = ContinuousClock.now
            let start = max(now, state.freeAt)
            state.freeAt = start + .nanoseconds(Int64(count) * 1_000_000_000 / Int64(rate))
            return start - now
        }
    }
}
