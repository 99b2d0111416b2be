import Synchronization

/// Writes handed off to backends but not finished yet, readable meanwhile.
///
/// Callers get their result before the bytes reach the disk; an ask made right after must not
/// download, decode or render again, so reads look here first (as Nuke's `DataCache` serves reads
/// from its staging area). A download is staged *unvalidated* until a decode succeeds: the pipeline
/// can read it, public reads cannot, and only a validated entry is ever written.
final class PendingWrites: Sendable {
    struct Slot: Hashable, Sendable {
        var storageType: StorageType
        var key: CacheKey
    }

    private struct Pending {
        var id: UInt64
        var entry: CacheEntry
        var validated: Bool
        var write: (@Sendable (CacheEntry) async throws -> Void)?
    }

    private struct State {
        var pending: [Slot: Pending] = [:]
        var nextID: UInt64 = 0
        /// Writes under way, with the slot each writes.
        var running: [UInt64: Slot] = [:]
        var flushWaiters: [CheckedContinuation<Void, Never>] = []
        /// Waiters for particular writes (`dropAndWait(where:)`), each with the writes it still awaits.
        var slotWaiters: [(writes: Set<UInt64>, continuation: CheckedContinuation<Void, Never>)] = []
        var failures = 0
    }

    private let state = Mutex(State())

    /// The entry staged for `slot`; unvalidated ones only when `includingUnvalidated`.
    func entry(for slot: Slot, includingUnvalidated: Bool) -> CacheEntry? {
        state.withLock { state in
            guard let pending = state.pending[slot], pending.validated || includingUnvalidated else { return nil }
            return pending.entry
        }
    }

    /// Stages `entry`. A validated entry is written at once by `write`; an unvalidated one waits for
    /// `commit(_:)` and is dropped by `discard(_:)`. Returns the token naming this staging.
    @discardableResult
    func stage(
        _ entry: CacheEntry, at slot: Slot, validated: Bool,
        write: @escaping @Sendable (CacheEntry) async throws -> Void
    ) -> Token {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.pending[slot] = Pending(id: state.nextID, entry: entry, validated: false, write: write)
            return state.nextID
        }
        let token = Token(slot: slot, id: id)
        if validated { commit(token) }
        return token
    }

    /// Marks the staged entry valid and starts its write (once; later calls do nothing).
    func commit(_ token: Token) {
        let job = state.withLock { state -> (CacheEntry, @Sendable (CacheEntry) async throws -> Void)? in
            guard var pending = state.pending[token.slot], pending.id == token.id, let write = pending.write else {
                return nil
            }
            pending.validated = true
            pending.write = nil
            state.pending[token.slot] = pending
            // Counted before the task starts, so a flush that begins now waits for it.
            state.running[token.id] = token.slot
            return (pending.entry, write)
        }
        guard let (entry, write) = job else { return }
        Task { [self] in
            var failed = false
            do { try await write(entry) } catch { failed = true }
            finish(token, failed: failed)
        }
    }

    /// Drops an unvalidated staged entry (its decode failed): it is never written.
    func discard(_ token: Token) {
        state.withLock { state in
            guard let pending = state.pending[token.slot], pending.id == token.id, !pending.validated else { return }
            state.pending[token.slot] = nil
        }
        resumeFlushWaitersIfIdle()
    }

    /// Forgets what is staged for `slot` (the key was removed); a write under way still finishes.
    func drop(_ slot: Slot) {
        state.withLock { _ = $0.pending.removeValue(forKey: slot) }
    }

    /// Forgets everything staged for `storageType` (it was emptied).
    func drop(storageType: StorageType) {
        state.withLock { state in
            for slot in state.pending.keys where slot.storageType == storageType { state.pending[slot] = nil }
        }
    }

    /// Forgets what is staged for the slots `isSelected` takes (an asset was removed), and returns
    /// once the writes of those slots already under way have finished, so none of them lands after.
    func dropAndWait(where isSelected: @escaping (Slot) -> Bool) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                for slot in state.pending.keys where isSelected(slot) { state.pending[slot] = nil }
                let writes = Set(state.running.filter { isSelected($0.value) }.keys)
                if writes.isEmpty { return true }
                state.slotWaiters.append((writes, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Callers of `dropAndWait(where:)` still waiting for writes (for tests).
    var slotWaiterCount: Int { state.withLock { $0.slotWaiters.count } }

    /// Writes that failed so far.
    var failureCount: Int { state.withLock { $0.failures } }

    /// Returns when no write is running (unvalidated entries are not waited for).
    func waitUntilWritten() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.running.isEmpty { return true }
                state.flushWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finish(_ token: Token, failed: Bool) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if failed { state.failures += 1 }
            state.running[token.id] = nil
            if state.pending[token.slot]?.id == token.id { state.pending[token.slot] = nil }
            guard !state.slotWaiters.isEmpty else { return [] }
            var resumed: [CheckedContinuation<Void, Never>] = []
            for index in state.slotWaiters.indices.reversed() {
                state.slotWaiters[index].writes.remove(token.id)
                if state.slotWaiters[index].writes.isEmpty {
                    resumed.append(state.slotWaiters.remove(at: index).continuation)
                }
            }
            return resumed
        }
        for waiter in resumed { waiter.resume() }
        resumeFlushWaitersIfIdle()
    }

    private func resumeFlushWaitersIfIdle() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.running.isEmpty else { return [] }
            defer { state.flushWaiters = [] }
            return state.flushWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Names one staging of one slot.
    struct Token: Sendable, Hashable {
        let slot: Slot
        let id: UInt64
    }
}
