import Synchronization

/// Runs one operation per key however many ask for it at once; one operation may serve several keys.
///
/// The first asker of a key starts the operation in a task of its own; later askers join it.
/// Every asker gets the same value or the same error — none is dropped. An asker that is
/// cancelled leaves with `CancellationError`; the operation is cancelled only when every asker has
/// left, and its keys are free again at once, so a new ask then starts a fresh operation.
/// Progress reported by the operation reaches every asker that passed a handler.
///
/// Priorities are live: an asker ranks by `LivePriority.current` (else the `priority` it passes), a flight
/// runs at the highest priority of its askers (its operation sees that as `LivePriority.current`), rises
/// when an asker joins or raises, and drops to the highest one left when an asker leaves or lowers.
///
/// `flights(for:priority:grouping:operation:)` is the multi-key form: a video reader asking for
/// chunks 3–8 joins the flight already fetching chunks 2–4 and starts one flight per run of the
/// rest, so each chunk is fetched once however the readers' ranges overlap.
package final class RequestPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A flight's outcome: the values of the keys it served.
    package typealias Outcome = Result<[Key: Value], Error>

    private struct Waiter {
        var deliver: @Sendable (Outcome) -> Void
        var progress: (@Sendable (FetchProgress) -> Void)?
        var priority: LivePriority
    }

    private struct Flight {
        let keys: [Key]
        /// The highest priority of the waiters.
        let priority: LivePriority
        private(set) var waiters: [UInt64: Waiter]
        /// The waiters' progress handlers, kept beside them so that a report (one per body chunk)
        /// copies an array out of the lock instead of building one.
        private(set) var progressHandlers: [@Sendable (FetchProgress) -> Void] = []
        var task: Task<Void, Never>?
        /// What its starter does when every asker leaves before the operation ended.
        var abandonment: FlightAbandonment<Value>?

        init(keys: [Key], waiterID: UInt64, waiter: Waiter) {
            self.keys = keys
            self.priority = LivePriority(highestOfSourcesFrom: waiter.priority.value)
            self.waiters = [waiterID: waiter]
            self.progressHandlers = waiter.progress.map { [$0] } ?? []
        }

        /// Adds a waiter; returns false if it was already waiting.
        mutating func add(_ waiter: Waiter, id: UInt64) -> Bool {
            guard waiters.updateValue(waiter, forKey: id) == nil else { return false }
            if let progress = waiter.progress { progressHandlers.append(progress) }
            return true
        }

        mutating func removeWaiter(_ id: UInt64) -> Waiter? {
            guard let waiter = waiters.removeValue(forKey: id) else { return nil }
            if waiter.progress != nil { progressHandlers = waiters.values.compactMap(\.progress) }
            return waiter
        }
    }

    /// A flight every asker left whose operation still runs (its abandonment began and has not ended), and the
    /// asks waiting for its end (`waitForAbandonedFlights(matching:)`).
    private struct Abandoned {
        let keys: [Key]
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private struct State {
        var flights: [UInt64: Flight] = [:]
        var flightOfKey: [Key: UInt64] = [:]
        var abandoned: [UInt64: Abandoned] = [:]
        var nextID: UInt64 = 0
        var joins = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Registers a flight for `keys` with its first waiter; returns its id.
        mutating func _open(keys: [Key], waiterID: UInt64, waiter: Waiter) -> UInt64 {
            let id = makeID()
            let flight = Flight(keys: keys, waiterID: waiterID, waiter: waiter)
            // A new flight has no observers yet: nothing to notify.
            _ = flight.priority._addSource(waiter.priority, id: waiterID)
            flights[id] = flight
            for key in keys { flightOfKey[key] = id }
            return id
        }

        /// Adds `waiter` to flight `id`; returns false if it was already waiting there, else the flight's
        /// priority change to notify once the lock is released.
        mutating func _join(_ id: UInt64, waiter: Waiter, waiterID: UInt64) -> PriorityChange? {
            guard flights[id]!.add(waiter, id: waiterID) else { return nil }
            return flights[id]!.priority._addSource(waiter.priority, id: waiterID)
        }

        /// Removes flight `id` and frees its keys; returns it.
        mutating func _close(_ id: UInt64) -> Flight? {
            guard let flight = flights.removeValue(forKey: id) else { return nil }
            for key in flight.keys where flightOfKey[key] == id { flightOfKey[key] = nil }
            return flight
        }
    }

    private let state = Mutex(State())
    /// Where every join of this pool is also counted (the manager's count of joins), if anywhere.
    private let joinCounter: JoinCounter?

    /// Creates an empty pool.
    package init() {
        joinCounter = nil
    }

    /// Creates an empty pool whose joins are also counted by `joinCounter`, and by the joining ask's `AskJoins`.
    package init(countingJoinsIn joinCounter: JoinCounter) {
        self.joinCounter = joinCounter
    }

    /// Counts a join where the statistics read it: the pool's owner and the ask that joined. A pool that counts no
    /// joins leaves the ask's record alone too, so that the two counts cover the same pools.
    private func countJoin() {
        guard let joinCounter else { return }
        joinCounter.add()
        AskJoins.current?.record()
    }

    /// How many asks joined an operation already under way (one per flight joined).
    package var joinCount: Int { state.withLock { $0.joins } }

    /// Returns once no flight that every asker left while its operation ran, with a `FlightAbandonment`, serves a
    /// key `matching` accepts: then what the operation returned anyway has been handed to the abandonment's `end`
    /// (a download's bytes staged), so that an ask made meanwhile reads them instead of fetching them again.
    /// Returns at once when there is none, and when the calling task is cancelled.
    package func waitForAbandonedFlights(matching matches: (Key) -> Bool) async {
        // Almost always none is abandoned: one lock, and no continuation made.
        while let waiterID = state.withLock({ $0.abandoned.isEmpty ? nil : $0.makeID() }) {
            let waited = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let registered = state.withLock { state -> Bool in
                        // Checked under the lock, as in `value(for:)`: the handler finds every waiter added.
                        guard !Task.isCancelled,
                            let id = state.abandoned.first(where: { $0.value.keys.contains(where: matches) })?.key
                        else { return false }
                        state.abandoned[id]!.waiters[waiterID] = continuation
                        return true
                    }
                    if !registered { continuation.resume(returning: false) }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    for id in state.abandoned.keys {
                        if let continuation = state.abandoned[id]!.waiters.removeValue(forKey: waiterID) {
                            return continuation
                        }
                    }
                    return nil
                }
                continuation?.resume(returning: false)
            }
            guard waited else { return }
        }
    }

    /// Ends abandoned flight `id`: its waiters go on.
    private func endAbandonment(of flightID: UInt64) {
        guard let ended = state.withLock({ $0.abandoned.removeValue(forKey: flightID) }) else { return }
        for waiter in ended.waiters.values { waiter.resume(returning: true) }
    }

    /// How many operations are under way.
    package var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// The priority of the flight serving `key` now, if one is under way.
    package func flightPriority(for key: Key) -> AssetRequest.Priority? {
        state.withLock { state in state.flightOfKey[key].flatMap { state.flights[$0]?.priority.value } }
    }

    /// The asker's priority: the current ask's, else a fixed one from `taskPriority`.
    private static func askerPriority(_ taskPriority: TaskPriority?) -> LivePriority {
        LivePriority.current ?? LivePriority(LivePriority.matching(taskPriority))
    }

    /// Returns the result of `operation` for `key`, sharing it with every concurrent asker of `key`.
    ///
    /// - Parameters:
    ///   - key: what the operation produces; concurrent asks for an equal key share one operation.
    ///   - priority: ranks this ask when no `LivePriority.current` is bound (high, normal or low).
    ///   - progress: called with the operation's progress while this asker waits.
    ///   - operation: run once per flight; it receives a function that reports progress to all askers.
    package func value(
        for key: Key,
        priority: TaskPriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil,
        operation: @escaping @Sendable (_ report: @escaping @Sendable (FetchProgress) -> Void) async throws -> Value
    ) async throws -> Value {
        try await value(for: key, priority: priority, progress: progress, abandonment: nil, operation: operation)
    }

    /// `value(for:priority:progress:operation:)`, with what to do when every asker leaves a flight this ask
    /// starts before its operation ended (see `FlightAbandonment`); an ask that joins a flight leaves that to
    /// the flight's starter.
    package func value(
        for key: Key,
        priority: TaskPriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil,
        abandonment: FlightAbandonment<Value>?,
        operation: @escaping @Sendable (_ report: @escaping @Sendable (FetchProgress) -> Void) async throws -> Value
    ) async throws -> Value {
        let waiterID = state.withLock { $0.makeID() }
        let askerPriority = Self.askerPriority(priority)
        let joined = Mutex<UInt64?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let waiter = Waiter(
                    deliver: { outcome in
                        let value = outcome.flatMap { values in
                            values[key].map { .success($0) } ?? .failure(CancellationError())
                        }
                        continuation.resume(with: value)
                    },
                    progress: progress,
                    priority: askerPriority
                )
                var change: PriorityChange?
                let started = state.withLock { state -> UInt64?? in
                    // Cancellation is flagged before the handler runs, so checking under the lock
                    // means a waiter is either never added or always found by the handler.
                    guard !Task.isCancelled else { return .none }
                    if let id = state.flightOfKey[key] {
                        change = state._join(id, waiter: waiter, waiterID: waiterID)
                        state.joins += 1
                        joined.withLock { $0 = id }
                        return .some(nil)
                    }
                    let id = state._open(keys: [key], waiterID: waiterID, waiter: waiter)
                    state.flights[id]!.abandonment = abandonment
                    joined.withLock { $0 = id }
                    return .some(id)
                }
                change?.notify()
                switch started {
                case .none: continuation.resume(throwing: CancellationError())
                case .some(nil): countJoin()  // joined a flight under way
                case .some(let id?):
                    launch(flightID: id, abandonment: abandonment) { report in [key: try await operation(report)] }
                }
            }
        } onCancel: {
            // Read under the pool's lock, which the body holds from its cancellation check until it has
            // set `joined`: either the body saw the cancellation, or this sees the flight it joined.
            if let id = state.withLock({ _ in joined.withLock { $0 } }) { leave(flightID: id, waiterID: waiterID) }
        }
    }

    /// Serves `keys` from flights: joins the flight under way for each key that has one, and starts
    /// one flight per group of the rest that `grouping` forms (each group runs `operation` once).
    ///
    /// Returns at once. `deliver` is called once per flight this ask depends on, with the values
    /// of that flight's keys (which may include keys this ask did not need) or its error, as each
    /// flight finishes. Call `leave` on the returned ticket when done or cancelled: a flight is
    /// cancelled when every ask that depends on it has left before it finished.
    ///
    /// - Parameters:
    ///   - keys: the keys wanted, in the order `grouping` expects.
    ///   - priority: ranks this ask when no `LivePriority.current` is bound (high, normal or low).
    ///   - grouping: cuts the keys no flight covers into the key sets of new flights.
    ///   - deliver: called once per flight this ask depends on, with its values or its error.
    ///   - operation: fetches one group; it must return a value for every key of the group.
    package func flights(
        for keys: [Key],
        priority: TaskPriority? = nil,
        grouping: ([Key]) -> [[Key]],
        deliver: @escaping @Sendable (Outcome) -> Void,
        operation: @escaping @Sendable (_ keys: [Key]) async throws -> [Key: Value]
    ) -> FlightTicket {
        let waiterID = state.withLock { $0.makeID() }
        let waiter = Waiter(deliver: deliver, progress: nil, priority: Self.askerPriority(priority))
        let (joinedIDs, started, changes) = state.withLock { state -> ([UInt64], [(UInt64, [Key])], [PriorityChange]) in
            var joinedIDs: [UInt64] = []
            var uncovered: [Key] = []
            var changes: [PriorityChange] = []
            for key in keys {
                guard let id = state.flightOfKey[key] else {
                    uncovered.append(key)
                    continue
                }
                if let change = state._join(id, waiter: waiter, waiterID: waiterID) {
                    state.joins += 1
                    joinedIDs.append(id)
                    changes.append(change)
                }
            }
            let started = grouping(uncovered).filter { !$0.isEmpty }.map { group in
                (state._open(keys: group, waiterID: waiterID, waiter: waiter), group)
            }
            return (joinedIDs, started, changes)
        }
        for change in changes { change.notify() }
        for _ in joinedIDs { countJoin() }
        for (id, group) in started {
            launch(flightID: id) { _ in try await operation(group) }
        }
        let ids = joinedIDs + started.map(\.0)
        return FlightTicket(flightCount: ids.count) { [self] in
            for id in ids { leave(flightID: id, waiterID: waiterID, notify: false) }
        }
    }

    private typealias Report = @Sendable (FetchProgress) -> Void
    private typealias Operation = @Sendable (_ report: @escaping Report) async throws -> [Key: Value]

    private func launch(
        flightID: UInt64, abandonment: FlightAbandonment<Value>? = nil, operation: @escaping Operation
    ) {
        let report: @Sendable (FetchProgress) -> Void = { [self] value in
            let handlers = state.withLock { $0.flights[flightID]?.progressHandlers ?? [] }
            for handler in handlers { handler(value) }
        }
        guard let priority = state.withLock({ $0.flights[flightID]?.priority }) else {
            // Every asker left before it started: `leave` began the abandonment, which ends with nothing.
            if let abandonment {
                Task {
                    await abandonment.end(nil)
                    endAbandonment(of: flightID)
                }
            }
            return
        }
        let task = Task(priority: priority.value.taskPriority) { [self] in
            let outcome: Outcome
            do {
                // What the operation waits for ranks by every asker of the flight, not by the first.
                outcome = .success(try await LivePriority.$current.withValue(priority) { try await operation(report) })
            } catch {
                outcome = .failure(error)
            }
            let closed = state.withLock { $0._close(flightID) }
            guard let closed else {
                // Every asker left while the operation ran (`leave` began the abandonment): its starter decides
                // what becomes of a value that arrived anyway.
                await abandonment?.end((try? outcome.get())?.values.first)
                endAbandonment(of: flightID)
                return
            }
            closed.priority.removeAllSources()
            for deliver in closed.waiters.values.map(\.deliver) { deliver(outcome) }
        }
        let orphaned = state.withLock { state -> Bool in
            guard state.flights[flightID] != nil else { return true }
            state.flights[flightID]!.task = task
            return false
        }
        // Every asker left before the task was recorded: nobody else will cancel it.
        if orphaned { task.cancel() }
    }

    /// Waiter `waiterID` leaves flight `flightID` (idempotent); with `notify`, it is told so with
    /// `CancellationError`. The flight is cancelled when it was the last waiter.
    private func leave(flightID: UInt64, waiterID: UInt64, notify: Bool = true) {
        let (waiter, abandoned, change) = state.withLock { state -> (Waiter?, Flight?, PriorityChange?) in
            guard let waiter = state.flights[flightID]?.removeWaiter(waiterID) else {
                return (nil, nil, nil)
            }
            guard state.flights[flightID]!.waiters.isEmpty else {
                // The flight drops to the highest priority of the askers left.
                return (waiter, nil, state.flights[flightID]!.priority._removeSource(waiterID))
            }
            let abandoned = state._close(flightID)
            // Begun under the lock, so that it always comes before the `end` its task calls once it ends.
            if let abandoned, let abandonment = abandoned.abandonment {
                abandonment.begin()
                state.abandoned[flightID] = Abandoned(keys: abandoned.keys)
            }
            return (waiter, abandoned, nil)
        }
        change?.notify()
        abandoned?.priority.removeAllSources()
        if notify { waiter?.deliver(.failure(CancellationError())) }
        abandoned?.task?.cancel()
    }
}

/// What becomes of a flight that every asker left while its operation ran: the operation is cancelled as ever,
/// and its starter learns when it ended and what it returned if it finished anyway (a download whose last bytes
/// arrived as its askers left), so that nothing that arrived is thrown away.
package struct FlightAbandonment<Value: Sendable>: Sendable {
    /// Called, under the pool's lock, when the last asker leaves a flight whose operation still runs: must neither
    /// block nor call the pool.
    let begin: @Sendable () -> Void
    /// Called once from the flight's (cancelled) task when its operation ended, with its value if it returned one.
    let end: @Sendable (Value?) async -> Void

    package init(begin: @escaping @Sendable () -> Void, end: @escaping @Sendable (Value?) async -> Void) {
        self.begin = begin
        self.end = end
    }
}

/// One ask's hold on the flights a `RequestPool.flights(for:…)` call joined or started.
package struct FlightTicket: Sendable {
    /// How many flights the ask depends on: the number of times its `deliver` will be called
    /// unless it leaves first.
    package let flightCount: Int
    private let leaveAll: @Sendable () -> Void

    init(flightCount: Int, leave: @escaping @Sendable () -> Void) {
        self.flightCount = flightCount
        self.leaveAll = leave
    }

    /// Leaves every flight of the ask (idempotent); each flight no other ask depends on is cancelled.
    package func leave() { leaveAll() }
}

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
