import Synchronization

/// Runs one operation per key however many ask for it at once.
///
/// The first asker of a key starts the operation in a task of its own; later askers join it.
/// Every asker gets the same value or the same error — none is dropped. An asker that is
/// cancelled leaves with `CancellationError`; the operation is cancelled only when every asker has
/// left, and the key is free again at once, so a new ask then starts a fresh operation.
/// Progress reported by the operation reaches every asker that passed a handler.
public final class RequestPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Value, Error>
        var progress: (@Sendable (FetchProgress) -> Void)?
    }

    private struct Flight {
        let id: UInt64
        var waiters: [UInt64: Waiter]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0
        var joins = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Mutex(State())

    /// Creates an empty pool.
    public init() {}

    /// How many asks joined an operation already under way.
    public var joinCount: Int { state.withLock { $0.joins } }

    /// How many keys have an operation under way.
    public var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// Returns the result of `operation` for `key`, sharing it with every concurrent asker of `key`.
    ///
    /// - Parameters:
    ///   - key: what the operation produces; concurrent asks for an equal key share one operation.
    ///   - priority: the priority of the operation's task when this ask starts it.
    ///   - progress: called with the operation's progress while this asker waits.
    ///   - operation: run once per flight; it receives a function that reports progress to all askers.
    public func value(
        for key: Key,
        priority: TaskPriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil,
        operation: @escaping @Sendable (_ report: @escaping @Sendable (FetchProgress) -> Void) async throws -> Value
    ) async throws -> Value {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let flightID = state.withLock { state -> UInt64? in
                    // Cancellation is flagged before the handler runs, so checking under the lock
                    // means a waiter is either never added or always found by the handler.
                    guard !Task.isCancelled else { return nil }
                    let waiter = Waiter(continuation: continuation, progress: progress)
                    if state.flights[key] != nil {
                        state.flights[key]!.waiters[waiterID] = waiter
                        state.joins += 1
                        return 0
                    }
                    let id = state.makeID()
                    state.flights[key] = Flight(id: id, waiters: [waiterID: waiter], task: nil)
                    return id
                }
                switch flightID {
                case nil: continuation.resume(throwing: CancellationError())
                case 0: break  // joined a flight under way
                case let id?: start(key: key, flightID: id, priority: priority, operation: operation)
                }
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    private func start(
        key: Key, flightID: UInt64, priority: TaskPriority?,
        operation: @escaping @Sendable (_ report: @escaping @Sendable (FetchProgress) -> Void) async throws -> Value
    ) {
        let report: @Sendable (FetchProgress) -> Void = { [self] value in
            let handlers = state.withLock { state in
                state.flights[key].map { $0.id == flightID ? $0.waiters.values.compactMap(\.progress) : [] } ?? []
            }
            for handler in handlers { handler(value) }
        }
        let task = Task(priority: priority) { [self] in
            let result: Result<Value, Error>
            do {
                result = .success(try await operation(report))
            } catch {
                result = .failure(error)
            }
            let waiters = state.withLock { state -> [Waiter] in
                guard let flight = state.flights[key], flight.id == flightID else { return [] }
                state.flights[key] = nil
                return Array(flight.waiters.values)
            }
            for waiter in waiters { waiter.continuation.resume(with: result) }
        }
        let orphaned = state.withLock { state -> Bool in
            guard state.flights[key]?.id == flightID else { return true }
            state.flights[key]!.task = task
            return false
        }
        // Every asker left before the task was recorded: nobody else will cancel it.
        if orphaned { task.cancel() }
    }

    private func leave(key: Key, waiterID: UInt64) {
        let (waiter, abandoned) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let waiter = flight.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                state.flights[key] = nil
                return (waiter, flight.task)
            }
            state.flights[key] = flight
            return (waiter, nil)
        }
        waiter?.continuation.resume(throwing: CancellationError())
        abandoned?.cancel()
    }
}
