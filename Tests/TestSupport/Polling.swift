import Foundation
import SampleOrigin
import Synchronization

/// Thrown when a polled condition did not become true in time.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    /// What was awaited.
    public let condition: String
    public var description: String { "timed out waiting for: \(condition)" }
}

/// Polls `condition` until it holds, failing after `timeout`: for waiting on work a test cannot
/// await directly (an in-flight count reaching N). Never a fixed sleep.
///
/// The bound is generous on purpose: the test runner shares a 2-thread cooperative pool among all
/// tests, so a busy neighbour can delay this poll by seconds; the bound catches work that never
/// happens, not work that is slow. It is scaled by `SampleOrigin.timeoutScale` (sanitizer runs).
public func waitUntil(
    _ condition: String, timeout: Duration = .seconds(90), _ check: @Sendable () async -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout * SampleOrigin.timeoutScale
    while !(await check()) {
        guard ContinuousClock.now < deadline else { throw ConditionTimedOut(condition: condition) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// A count that tasks and threads add to and a test polls with `waitUntil` (how many asks have returned,
/// whether a blocking call on another thread has come back).
public final class SharedCount: Sendable {
    private let count = Mutex(0)

    public init() {}

    /// The count now.
    public var value: Int { count.withLock { $0 } }

    /// Adds one.
    public func add() { count.withLock { $0 += 1 } }
}
