import Foundation
import Synchronization

extension SampleOrigin {
    /// Limits the body bytes all connections send together to `bytesPerSecond` (`nil`: unlimited), as one
    /// shared link does: a prefetch and a display downloading at once compete for it.
    ///
    /// Bodies then go out in pieces of at most 16 KiB, each sent when the link is free and keeping it busy for
    /// its size at the rate, so concurrent bodies share the rate. A body whose client hung up stops waiting
    /// and takes no more of the link. Takes effect for pieces sent from now on.
    package func setBandwidthLimit(bytesPerSecond: Int?) {
        bandwidth.setRate(bytesPerSecond.map { max(1, $0) })
    }
}

/// The link all of an origin's bodies share when a bandwidth limit is set.
final class BandwidthLimit: Sendable {
    /// The largest piece a paced body sends at once.
    static let pieceSize = 16 * 1024

    private struct State {
        var bytesPerSecond: Int?
        /// When the link is free again after the last piece sent.
        var freeAt: ContinuousClock.Instant
    }

    private let state: Mutex<State>
    /// Reads the time; tests pass a clock they move by hand.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
        state = Mutex(State(freeAt: now()))
    }

    /// Whether bodies are paced now.
    var isLimited: Bool { state.withLock { $0.bytesPerSecond != nil } }

    func setRate(_ bytesPerSecond: Int?) {
        state.withLock { state in
            state.bytesPerSecond = bytesPerSecond
            state.freeAt = now()
        }
    }

    /// Takes the link for `count` bytes when it is free (returns zero: send them now); else returns how long
    /// until it is free, taking nothing, so a sender that gives up in between holds no link time.
    func take(_ count: Int) -> Duration {
        state.withLock { state in
            guard let rate = state.bytesPerSecond else { return .zero }
            let instant = now()
            guard state.freeAt <= instant else { return state.freeAt - instant }
            state.freeAt = instant + .nanoseconds(Int64(count) * 1_000_000_000 / Int64(rate))
            return .zero
        }
    }
}
