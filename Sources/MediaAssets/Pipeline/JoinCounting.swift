import Synchronization

/// A count of joins: asks that joined work already under way (a flight of a `RequestPool`) instead of starting it.
package final class JoinCounter: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// The joins counted so far.
    package var value: Int { count.load(ordering: .relaxed) }

    func add() { count.add(1, ordering: .relaxed) }
}

/// The joins of one ask, bound to the task that runs it (and inherited by the flights it starts): a pool that lets
/// the ask (or one of those flights) join a flight under way records it here, for the ask's result and for the
/// statistics of whatever runs the ask.
package final class AskJoins: Sendable {
    /// The ask running now, if something that reports joins bound one.
    @TaskLocal package static var current: AskJoins?

    /// Where the ask's joins are summed (a pipeline's count).
    package let counter: JoinCounter
    private let joinedFlag = Atomic<Bool>(false)

    package init(counter: JoinCounter) {
        self.counter = counter
    }

    /// Whether the ask joined work another ask had started.
    package var joined: Bool { joinedFlag.load(ordering: .relaxed) }

    func record() {
        joinedFlag.store(true, ordering: .relaxed)
        counter.add()
    }
}
