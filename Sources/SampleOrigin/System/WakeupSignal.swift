import Foundation

/// Lets server threads sleep until something relevant changes (a release, a new behaviour, stop) or a deadline.
///
/// The state itself lives behind a `Mutex`; this only counts changes. A waiter reads the generation, checks
/// the state, and waits only while the generation is unchanged, so a change between check and wait is never
/// missed.
final class WakeupSignal: @unchecked Sendable {
    // `@unchecked` is sound: `generation` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var generation: UInt64 = 0

    /// The current change count; read it before checking the state you will wait on.
    var currentGeneration: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    /// Records a change and wakes every waiter.
    func broadcast() {
        condition.lock()
        generation &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps while the generation is still `seen`, at most until `deadline` (forever when `nil`).
    func wait(whileGenerationIs seen: UInt64, until deadline: ContinuousClock.Instant?) {
        condition.lock()
        defer { condition.unlock() }
        while generation == seen {
            guard let deadline else {
                condition.wait()
                continue
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) * 1e-18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
    }
}
