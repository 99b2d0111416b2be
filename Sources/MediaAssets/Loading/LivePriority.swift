import Synchronization

/// A request's priority that can change while its work waits or runs.
///
/// An ask holds one (an `ImageTask`'s `priority` sets it), and every place the ask waits watches it: a
/// `WorkLimiter` re-orders its queue, and a `RequestPool` flight runs at the highest priority of its
/// askers, dropping to the highest one left when an asker leaves or lowers. Inside a flight's operation,
/// ``current`` is the flight's own priority, so whatever the flight waits for is ranked by all its askers.
///
/// A util passes an ask's priority down by binding it, and everything below reads it from there:
/// ```swift
/// let priority = LivePriority(.low)
/// let task = Task {
///     try await LivePriority.$current.withValue(priority) { try await pipeline.value(for: request, …) }
/// }
/// priority.value = .high   // the row scrolled into view: its download and decode move up their queues
/// ```
@usableFromInline
package final class LivePriority: Sendable {
    /// The priority of the ask the current task works for; `nil` outside any ask (then a request's own
    /// `AssetRequest.priority` ranks it).
    @TaskLocal package static var current: LivePriority?

    private struct Source {
        let priority: LivePriority
        let observation: UInt64
    }

    private struct State {
        /// Set by `value`'s setter; `nil` for a flight's priority, which only follows its sources.
        var own: AssetRequest.Priority?
        var sources: [UInt64: Source] = [:]
        var value: AssetRequest.Priority
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserverID: UInt64 = 0

        /// Recomputes `value` from `own` and the sources; returns whether it changed.
        mutating func _recompute() -> Bool {
            var highest = own
            for source in sources.values {
                let value = source.priority.value
                if highest.map({ value > $0 }) ?? true { highest = value }
            }
            guard let highest, highest != value else { return false }
            value = highest
            return true
        }
    }

    private let state: Mutex<State>

    /// Creates a priority of `value`.
    package init(_ value: AssetRequest.Priority) {
        state = Mutex(State(own: value, value: value))
    }

    /// A flight's priority: the highest of the sources added, `initial` until the first is added.
    init(highestOfSourcesFrom initial: AssetRequest.Priority) {
        state = Mutex(State(own: nil, value: initial))
    }

    /// The priority now. Setting it re-orders, at once, every queue the work waits in.
    package var value: AssetRequest.Priority {
        get { state.withLock { $0.value } }
        set {
            let observers = state.withLock { state -> [@Sendable () -> Void] in
                state.own = newValue
                return state._recompute() ? Array(state.observers.values) : []
            }
            for observer in observers { observer() }
        }
    }

    // MARK: Observation (the waiting places of this module)

    /// Calls `observer` after every change, outside any lock; it reads `value` itself, so changes racing
    /// each other always leave it with the latest. Returns the id that `removeObserver(_:)` takes.
    func addObserver(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.nextObserverID += 1
            state.observers[state.nextObserverID] = observer
            return state.nextObserverID
        }
    }

    /// Stops calling the observer `id` (idempotent).
    func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Follows `source` too, under `id`, and returns the observers to call once the caller's locks are
    /// released (the value may have risen).
    func _addSource(_ source: LivePriority, id: UInt64) -> PriorityChange {
        let observation = source.addObserver { [weak self] in self?.sourceChanged() }
        return state.withLock { state in
            state.sources[id] = Source(priority: source, observation: observation)
            return PriorityChange(observers: state._recompute() ? Array(state.observers.values) : [])
        }
    }

    /// Stops following source `id` and returns the observers to call once the caller's locks are released
    /// (the value may have dropped to the highest source left). With no source left the value stays.
    func _removeSource(_ id: UInt64) -> PriorityChange {
        let (removed, change) = state.withLock { state -> (Source?, PriorityChange) in
            guard let removed = state.sources.removeValue(forKey: id) else { return (nil, PriorityChange()) }
            let changed = !state.sources.isEmpty && state._recompute()
            return (removed, PriorityChange(observers: changed ? Array(state.observers.values) : []))
        }
        if let removed { removed.priority.removeObserver(removed.observation) }
        return change
    }

    /// Stops following every source, without notifying (the flight is over).
    func removeAllSources() {
        let sources = state.withLock { state in
            defer { state.sources = [:] }
            return Array(state.sources.values)
        }
        for source in sources { source.priority.removeObserver(source.observation) }
    }

    private func sourceChanged() {
        let observers = state.withLock { state in state._recompute() ? Array(state.observers.values) : [] }
        for observer in observers { observer() }
    }

    /// Runs `operation` for an ask ranked by `priority`; without one, by the current ask's (when this runs
    /// inside another ask's work), else by `request`'s own fixed priority.
    ///
    /// Public entry points of a util call this once, so that every flight and limiter below sees the ask's
    /// priority as ``current``.
    package static func withAskPriority<T>(
        _ priority: LivePriority?, request: AssetRequest, _ operation: () async throws -> T
    ) async rethrows -> T {
        if let priority { return try await $current.withValue(priority, operation: operation) }
        if current != nil { return try await operation() }
        return try await $current.withValue(LivePriority(request.priority), operation: operation)
    }

    /// The fixed priority a request ranks by outside any live ask, from a task priority.
    static func matching(_ taskPriority: TaskPriority?) -> AssetRequest.Priority {
        guard let taskPriority else { return .normal }
        // The inverse of `AssetRequest.Priority.taskPriority`: each level from its task priority up.
        if taskPriority >= AssetRequest.Priority.userInteractive { return .veryHigh }
        if taskPriority >= .high { return .high }
        if taskPriority >= .medium { return .normal }
        if taskPriority >= .low { return .low }
        return .veryLow
    }
}

/// Observers to call after a priority changed, once the caller released its locks.
struct PriorityChange {
    var observers: [@Sendable () -> Void] = []

    func notify() {
        for observer in observers { observer() }
    }
}
