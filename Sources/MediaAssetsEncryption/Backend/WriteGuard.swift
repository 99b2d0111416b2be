import Synchronization

/// Keeps the re-encryption sweep from writing over a newer entry or bringing back a removed one.
///
/// Writes through the backend (stores, removes) register their storage name while they run; the
/// sweep claims a name before it reads and reseals it, skipping names with a write under way, and
/// a write to a claimed name waits for the claim. A batch removal waits for every claim and keeps
/// new ones from starting. This covers one process; another process writing the same storage while a
/// sweep runs can lose a write to it, which costs that entry a refetch.
final class WriteGuard: Sendable {
    private struct State {
        var writing: [String: Int] = [:]
        var claimed: Set<String> = []
        var batchRemovals = 0
        /// Moves on every write and batch removal: a read that saw no change may remove what it read.
        var generation: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Writes and batch removals waiting for a claim to end (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// The generation now, for `removeIfUnchanged`.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Runs a write of `name`, after any claim of it ends.
    func write<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        while true {
            let admitted = await waitUnless { state in
                guard !state.claimed.contains(name) else { return false }
                state.writing[name, default: 0] += 1
                state.generation += 1
                return true
            }
            if admitted { break }
        }
        defer { finish { $0.writing[name] = $0.writing[name] == 1 ? nil : $0.writing[name].map { $0 - 1 } } }
        return try await body()
    }

    /// Runs a batch removal once no claim is held; no claim starts until it ends.
    func batchRemoval<T>(_ body: () async throws -> T) async throws -> T {
        state.withLock {
            $0.batchRemovals += 1
            $0.generation += 1
        }
        defer { finish { $0.batchRemovals -= 1 } }
        while !(await waitUnless { $0.claimed.isEmpty }) {}
        return try await body()
    }

    /// Claims `name` for the sweep; false when a write of it or a batch removal is under way.
    func claim(_ name: String) -> Bool {
        state.withLock { state in
            guard state.batchRemovals == 0, state.writing[name] == nil, !state.claimed.contains(name) else {
                return false
            }
            state.claimed.insert(name)
            return true
        }
    }

    /// Ends the sweep's claim of `name`.
    func release(_ name: String) {
        finish { _ = $0.claimed.remove(name) }
    }

    /// Removes what a read found damaged or unopenable, unless anything was written since `generation`.
    func removeIfUnchanged(_ name: String, since generation: UInt64, _ remove: () async throws -> Void) async {
        let unchanged = state.withLock { state -> Bool in
            guard state.generation == generation, !state.claimed.contains(name) else { return false }
            state.writing[name, default: 0] += 1
            return true
        }
        guard unchanged else { return }
        defer { finish { $0.writing[name] = $0.writing[name] == 1 ? nil : $0.writing[name].map { $0 - 1 } } }
        try? await remove()
    }

    /// Returns true if `admit` accepted under the lock; otherwise waits for the next change and
    /// returns false (the caller tries again).
    private func waitUnless(_ admit: @escaping (inout State) -> Bool) async -> Bool {
        var admitted = false
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if admit(&state) {
                    admitted = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return admitted
    }

    /// Changes the state and wakes every waiter to look again.
    private func finish(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
