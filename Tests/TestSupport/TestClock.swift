import Foundation
import Synchronization

/// A clock tests move by hand, so expiry is tested without waiting.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Creates a clock at `start`.
    public init(_ start: Date = Date(timeIntervalSinceReferenceDate: 800_000_000)) {
        current = Mutex(start)
    }

    /// The current time.
    public var date: Date { current.withLock { $0 } }

    /// A closure for a `now:` parameter.
    public var now: @Sendable () -> Date { { self.date } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
