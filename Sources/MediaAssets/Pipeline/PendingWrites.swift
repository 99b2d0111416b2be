import Synchronization

/// Writes handed off to backends but not finished yet, readable meanwhile, within a byte limit.
///
/// Callers get their result before the bytes reach the disk; an ask made right after must not
/// download, decode or render again, so reads look here first. A download is staged *unvalidated*
/// until a decode succeeds: the pipeline can read it, public reads cannot, and only a validated entry
/// is ever written.
///
/// Each staging holds its entry's bytes from `stage` until its write finished, or until it was
/// discarded, dropped or replaced before its write started. Together they stay within `byteLimit`:
/// a staging that would pass it waits, in the order they came, for earlier writes to finish (an entry
/// larger than the limit waits until nothing else is staged), or, for bytes no asker waits for
/// (`stageIfRoom`), is not staged at all. Room always comes: a flight, or the background validation of a
/// download its askers left, commits or discards what it staged without staging anything else first, and
/// every write ends.
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

    private struct RoomWaiter {
        var ticket: UInt64
        var bytes: Int
        var continuation: CheckedContinuation<UInt64, Error>
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
        /// The bytes each staging holds, by id.
        var charged: [UInt64: Int] = [:]
        var stagedBytes = 0
        var peakStagedBytes = 0
        /// Stagings waiting for room, in the order they came.
        var roomWaiters: [RoomWaiter] = []
        var nextTicket: UInt64 = 0

        /// Whether `bytes` more fit within `limit` (anything fits an empty staging area).
        func _fits(_ bytes: Int, limit: Int) -> Bool {
            stagedBytes == 0 || stagedBytes + bytes <= limit
        }

        /// Charges `bytes` to a new staging id and returns it.
        mutating func _charge(_ bytes: Int) -> UInt64 {
            nextID += 1
            charged[nextID] = bytes
            stagedBytes += bytes
            peakStagedBytes = max(peakStagedBytes, stagedBytes)
            return nextID
        }

        mutating func _release(_ id: UInt64) {
            if let bytes = charged.removeValue(forKey: id) { stagedBytes -= bytes }
        }

        /// Forgets the pending entry of `slot`; its bytes stay charged while its write is under way.
        mutating func _removePending(_ slot: Slot) {
            guard let pending = pending.removeValue(forKey: slot) else { return }
            if running[pending.id] == nil { _release(pending.id) }
        }

        /// Charges the waiters at the front that fit now, removes them from the queue and returns them with
        /// their ids.
        mutating func _admitWaiters(limit: Int) -> [(CheckedContinuation<UInt64, Error>, UInt64)] {
            var admitted: [(CheckedContinuation<UInt64, Error>, UInt64)] = []
            while let first = roomWaiters.first, _fits(first.bytes, limit: limit) {
                roomWaiters.removeFirst()
                admitted.append((first.continuation, _charge(first.bytes)))
            }
            return admitted
        }
    }

    /// The most bytes staged at once (an entry larger than this is staged alone).
    let byteLimit: Int
    private let state = Mutex(State())

    /// Creates a staging area of at most `byteLimit` bytes.
    init(byteLimit: Int = .max) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The entry staged for `slot`; unvalidated ones only when `includingUnvalidated`.
    func entry(for slot: Slot, includingUnvalidated: Bool) -> CacheEntry? {
        state.withLock { state in
            guard let pending = state.pending[slot], pending.validated || includingUnvalidated else { return nil }
            return pending.entry
        }
    }

    /// Stages `entry` once it fits within the byte limit, waiting for earlier writes when it does not. A
    /// validated entry is written at once by `write`; an unvalidated one waits for `commit(_:)` and is dropped
    /// by `discard(_:)`. Returns the token naming this staging.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while it waits for room (nothing is staged).
    @discardableResult
    func stage(
        _ entry: CacheEntry, at slot: Slot, validated: Bool,
        write: @escaping @Sendable (CacheEntry) async throws -> Void
    ) async throws -> Token {
        let id = try await reserve(Self.bytes(of: entry))
        return place(entry, at: slot, id: id, validated: validated, write: write)
    }

    /// Stages `entry` as `stage(_:at:validated:write:)` does if it fits within the byte limit now and no staging
    /// waits for room; else stages nothing and returns `nil`. For bytes no asker waits for any more (a download
    /// every asker left): holding them until room comes would hold them outside the limit.
    func stageIfRoom(
        _ entry: CacheEntry, at slot: Slot, validated: Bool,
        write: @escaping @Sendable (CacheEntry) async throws -> Void
    ) -> Token? {
        let bytes = Self.bytes(of: entry)
        let id = state.withLock { state -> UInt64? in
            guard state.roomWaiters.isEmpty, state._fits(bytes, limit: byteLimit) else { return nil }
            return state._charge(bytes)
        }
        return id.map { place(entry, at: slot, id: $0, validated: validated, write: write) }
    }

    /// Puts `entry`, charged under `id`, in `slot`, replacing what was staged there.
    private func place(
        _ entry: CacheEntry, at slot: Slot, id: UInt64, validated: Bool,
        write: @escaping @Sendable (CacheEntry) async throws -> Void
    ) -> Token {
        let replaced = state.withLock { state -> Bool in
            let replaced = state.pending[slot] != nil
            state._removePending(slot)
            state.pending[slot] = Pending(id: id, entry: entry, validated: false, write: write)
            return replaced
        }
        if replaced { admitWaiters() }
        let token = Token(slot: slot, id: id)
        if validated { commit(token) }
        return token
    }

    /// The entry staged unvalidated for `slot`, with its token, if there is one: bytes still waiting for the
    /// decode that lets them be written.
    func unvalidated(for slot: Slot) -> (entry: CacheEntry, token: Token)? {
        state.withLock { state in
            guard let pending = state.pending[slot], !pending.validated else { return nil }
            return (pending.entry, Token(slot: slot, id: pending.id))
        }
    }

    /// Whether the staging `token` names is still staged and waits for its validation (neither committed,
    /// discarded, dropped nor replaced).
    func awaitsValidation(_ token: Token) -> Bool {
        state.withLock { state in
            guard let pending = state.pending[token.slot] else { return false }
            return pending.id == token.id && !pending.validated
        }
    }

    /// What a staged entry holds in memory: its bytes and any decoded object beside them.
    private static func bytes(of entry: CacheEntry) -> Int {
        entry.data.count + (entry.decoded?.cost ?? 0)
    }

    /// Charges `bytes` once they fit, after the stagings already waiting; returns the staging's id.
    private func reserve(_ bytes: Int) async throws -> UInt64 {
        let (admitted, ticket) = state.withLock { state -> (UInt64?, UInt64) in
            if state.roomWaiters.isEmpty, state._fits(bytes, limit: byteLimit) { return (state._charge(bytes), 0) }
            state.nextTicket += 1
            return (nil, state.nextTicket)
        }
        if let admitted { return admitted }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UInt64, Error>) in
                let outcome = state.withLock { state -> Result<UInt64, CancellationError>? in
                    // Checked under the lock: the handler either finds this waiter or it was never queued.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.roomWaiters.isEmpty, state._fits(bytes, limit: byteLimit) {
                        return .success(state._charge(bytes))
                    }
                    state.roomWaiters.append(RoomWaiter(ticket: ticket, bytes: bytes, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<UInt64, Error>? in
                guard let index = state.roomWaiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.roomWaiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
            // The waiter may have held up smaller ones behind it.
            admitWaiters()
        }
    }

    private func admitWaiters() {
        let admitted = state.withLock { $0._admitWaiters(limit: byteLimit) }
        for (continuation, id) in admitted { continuation.resume(returning: id) }
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
            state._removePending(token.slot)
        }
        admitWaiters()
        resumeFlushWaitersIfIdle()
    }

    /// Forgets what is staged for `slot` (the key was removed); a write under way still finishes.
    func drop(_ slot: Slot) {
        state.withLock { $0._removePending(slot) }
        admitWaiters()
    }

    /// Forgets everything staged for `storageType` (it was emptied).
    func drop(storageType: StorageType) {
        state.withLock { state in
            for slot in state.pending.keys where slot.storageType == storageType { state._removePending(slot) }
        }
        admitWaiters()
    }

    /// Forgets what is staged for the slots `isSelected` takes (an asset was removed), and returns
    /// once the writes of those slots already under way have finished, so none of them lands after.
    func dropAndWait(where isSelected: @escaping (Slot) -> Bool) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                for slot in state.pending.keys where isSelected(slot) { state._removePending(slot) }
                let writes = Set(state.running.filter { isSelected($0.value) }.keys)
                if writes.isEmpty { return true }
                state.slotWaiters.append((writes, continuation))
                return false
            }
            if done { continuation.resume() }
        }
        admitWaiters()
    }

    /// Callers of `dropAndWait(where:)` still waiting for writes (for tests).
    var slotWaiterCount: Int { state.withLock { $0.slotWaiters.count } }

    /// Callers of `waitUntilWritten()` still waiting (for tests).
    var flushWaiterCount: Int { state.withLock { $0.flushWaiters.count } }

    /// Writes that failed so far.
    var failureCount: Int { state.withLock { $0.failures } }

    /// The bytes staged now.
    var stagedBytes: Int { state.withLock { $0.stagedBytes } }

    /// The most bytes staged at once so far.
    var peakStagedBytes: Int { state.withLock { $0.peakStagedBytes } }

    /// Stagings waiting for room.
    var roomWaiterCount: Int { state.withLock { $0.roomWaiters.count } }

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

    /// Whether no write is running and no staging waits for room.
    var isIdle: Bool { state.withLock { $0.running.isEmpty && $0.roomWaiters.isEmpty } }

    private func finish(_ token: Token, failed: Bool) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if failed { state.failures += 1 }
            state.running[token.id] = nil
            state._release(token.id)
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
        admitWaiters()
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
