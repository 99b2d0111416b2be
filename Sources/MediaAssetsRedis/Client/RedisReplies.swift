import Synchronization

/// The replies to commands sent together on one connection, collected as the connection's reader
/// thread reads them, and awaited once by the task that sent the commands.
///
/// The reader resumes the awaiting task directly: its wake-up is the only hand-off of a command.
/// A task that awaits after the replies came does not suspend at all.
final class RedisReplies: Sendable {
    /// When the connection gives up on the replies (sent at, plus the read timeout).
    let deadline: ContinuousClock.Instant
    /// What was sent, for error messages: a command's name, or "a pipeline of N commands".
    let operation: String
    private let expected: Int
    private let state = Mutex(State())

    private typealias Outcome = Result<[RESPValue], RedisError>

    private struct State {
        var replies: [RESPValue] = []
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }

    init(for commands: [RESPCommand], deadline: ContinuousClock.Instant) {
        expected = commands.count
        operation = commands.count == 1 ? commands[0].name : "a pipeline of \(commands.count) commands"
        self.deadline = deadline
    }

    /// The replies in order (error replies are values), or the transport's failure.
    func value() async throws(RedisError) -> [RESPValue] {
        let outcome = await withCheckedContinuation { waiter in
            let ready = state.withLock { state in
                if state.outcome == nil { state.waiter = waiter }
                return state.outcome
            }
            if let ready { waiter.resume(returning: ready) }
        }
        return try outcome.get()
    }

    /// Adds the next reply (the reader thread, in order); true once every reply has come, when the
    /// caller then calls `finish()`.
    func append(_ reply: RESPValue) -> Bool {
        state.withLock { state in
            state.replies.append(reply)
            return state.replies.count == expected
        }
    }

    /// Delivers the replies collected, or `error`, and resumes the awaiting task. Only the first
    /// call counts.
    func finish(failing error: RedisError? = nil) {
        let resumed = state.withLock { state -> (waiter: CheckedContinuation<Outcome, Never>, outcome: Outcome)? in
            guard state.outcome == nil else { return nil }
            let outcome: Outcome = error.map { .failure($0) } ?? .success(state.replies)
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter.map { ($0, outcome) }
        }
        if let resumed { resumed.waiter.resume(returning: resumed.outcome) }
    }
}
