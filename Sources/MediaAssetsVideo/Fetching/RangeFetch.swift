import Foundation
import MediaAssets
import Synchronization

/// One Range request in flight, shared by every reader of its chunks: bytes reach readers as they arrive,
/// and each chunk is handed to the store as soon as it is complete.
///
/// The body is copied once, into one buffer per chunk; readers get slices of those buffers without copies,
/// waiting only for bytes not yet arrived. A chunk outside the bytes readers asked for (a server that sends
/// the whole body for a Range request) is kept only until stored; a reader of it then reads the cache.
/// The request is cancelled when every reader has left (unless the fetch is detached: a probe's first chunk
/// completes whoever waits).
final class RangeFetch: Sendable {
    /// What a read found at a position.
    enum Read {
        case bytes(Data)
        /// The chunk was stored and dropped from memory: read it from the cache.
        case stored
    }

    let key: CacheKey
    let info: VideoContentInfo
    let layout: ChunkLayout
    /// Whether complete chunks are stored (the resource fits the budget).
    let stores: Bool
    /// Runs to its end whether or not readers wait (a probe's chunk 0).
    let isDetached: Bool

    private struct State {
        /// The bytes the response carries (set from the response head; first the requested range).
        var span: Range<Int>
        /// The bytes readers may read from memory.
        var keep: Range<Int>
        /// Bytes of `span` received so far.
        var received = 0
        var buffers: [Int: FetchBuffer] = [:]
        /// Chunks stored and dropped from memory.
        var released: Set<Int> = []
        var ending: Result<Void, Error>?
        var readWaiters: [UInt64: CheckedContinuation<Void, Error>] = [:]
        var nextWaiterID: UInt64 = 0
        var storesDone = false
        var storeWaiters: [CheckedContinuation<Void, Never>] = []
        var readers = 0
        var isAbandoned = false
        var task: Task<Void, Never>?
    }

    private let state: Mutex<State>
    /// Complete chunks on their way to the store, in order.
    let completedChunks: AsyncStream<(index: Int, data: Data)>
    private let completedSink: AsyncStream<(index: Int, data: Data)>.Continuation
    /// Called once when the last reader leaves an unfinished, attached fetch.
    private let onAbandon: @Sendable (RangeFetch) -> Void

    init(
        key: CacheKey, info: VideoContentInfo, layout: ChunkLayout, bytes: Range<Int>, stores: Bool,
        isDetached: Bool = false, onAbandon: @escaping @Sendable (RangeFetch) -> Void
    ) {
        self.key = key
        self.info = info
        self.layout = layout
        self.stores = stores
        self.isDetached = isDetached
        self.onAbandon = onAbandon
        state = Mutex(State(span: bytes, keep: bytes))
        (completedChunks, completedSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The bytes readers may read from this fetch.
    var keep: Range<Int> { state.withLock { $0.keep } }

    /// Sets the task doing the request (cancelled when every reader leaves).
    func run(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.isAbandoned
        }
        if cancelled { task.cancel() }
    }

    // MARK: Readers

    /// Adds a reader; `false` when the fetch was abandoned and cannot serve one any more.
    func join() -> Bool {
        state.withLock { state in
            guard !state.isAbandoned else { return false }
            state.readers += 1
            return true
        }
    }

    /// A reader is done; the request is cancelled when it was the last one and the body is still coming.
    func leave() {
        let abandoned = state.withLock { state -> Task<Void, Never>?? in
            state.readers -= 1
            guard state.readers == 0, !isDetached, state.ending == nil, !state.isAbandoned else { return .none }
            state.isAbandoned = true
            return .some(state.task)
        }
        guard case .some(let task) = abandoned else { return }
        task?.cancel()
        onAbandon(self)
    }

    /// The bytes from `position` (inside `keep`), as many as have arrived up to `end` and the chunk's end;
    /// waits while none has.
    ///
    /// - Throws: the fetch's error (it failed or was cut short before `position`), `CancellationError`.
    func read(at position: Int, upTo end: Int) async throws -> Read {
        while true {
            let waiterID = state.withLock { state -> UInt64 in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            var outcome: Result<Read, Error>?
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    let immediate = state.withLock { state -> Result<Void, Error>? in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if let found = Self._available(state, at: position, upTo: end, layout: layout) {
                            outcome = .success(found)
                            return .success(())
                        }
                        if let ending = state.ending {
                            outcome = .failure((try? ending.get()).map { _ in VideoFetchEnded() } ?? Self.error(ending))
                            return .success(())
                        }
                        state.readWaiters[waiterID] = continuation
                        return nil
                    }
                    if let immediate { continuation.resume(with: immediate) }
                }
            } onCancel: {
                let waiter = state.withLock { $0.readWaiters.removeValue(forKey: waiterID) }
                waiter?.resume(throwing: CancellationError())
            }
            if let outcome { return try outcome.get() }
        }
    }

    private static func error(_ ending: Result<Void, Error>) -> Error {
        if case .failure(let error) = ending { return error }
        return VideoFetchEnded()
    }

    /// What can be read at `position` now, if anything.
    private static func _available(_ state: State, at position: Int, upTo end: Int, layout: ChunkLayout) -> Read? {
        let index = position / layout.chunkSize
        if state.released.contains(index) { return .stored }
        let arrived = state.span.lowerBound + state.received
        guard position >= state.span.lowerBound, position < arrived else { return nil }
        guard let buffer = state.buffers[index] else { return .stored }
        let segment = layout.byteRange(ofChunk: index).clamped(to: state.span)
        let upper = min(arrived, end, segment.upperBound)
        guard upper > position else { return nil }
        return .bytes(buffer.data((position - segment.lowerBound)..<(upper - segment.lowerBound)))
    }

    /// Returns once every chunk handed to the store has been stored (or failed to be).
    func waitForStores() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.storesDone { return true }
                state.storeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: The fetch's task

    /// The response carries `span` (a whole body for a Range request, say), of which readers read `keep`.
    func begin(span: Range<Int>, keep: Range<Int>) {
        state.withLock { state in
            state.span = span
            state.keep = keep
        }
    }

    /// The next byte position the body will bring, and where it ends.
    var position: (next: Int, end: Int) {
        state.withLock { ($0.span.lowerBound + $0.received, $0.span.upperBound) }
    }

    /// Takes a piece of the body: copies what is kept or stored, hands complete chunks to the store, and
    /// wakes the readers. `storesChunk` says whether a chunk (outside `keep`) is worth storing.
    ///
    /// Returns whether the fetch needs more of the body.
    func append(_ piece: Data, storesChunk: (Int) -> Bool) -> Bool {
        let (start, span, keep) = state.withLock { ($0.span.lowerBound + $0.received, $0.span, $0.keep) }
        var completed: [(Int, FetchBuffer)] = []
        var newBuffers: [(Int, FetchBuffer)] = []
        let usable = min(piece.count, max(0, span.upperBound - start))
        piece.withUnsafeBytes { (whole: UnsafeRawBufferPointer) in
            var consumed = 0
            var position = start
            while consumed < usable {
                let index = position / layout.chunkSize
                let segment = layout.byteRange(ofChunk: index).clamped(to: span)
                let take = min(usable - consumed, segment.upperBound - position)
                let wanted = segment.overlaps(keep) || (stores && storesChunk(index))
                if wanted {
                    let buffer =
                        newBuffers.last(where: { $0.0 == index })?.1
                        ?? state.withLock { $0.buffers[index] }
                        ?? {
                            let made = FetchBuffer(capacity: segment.count)
                            newBuffers.append((index, made))
                            return made
                        }()
                    buffer.copy(
                        UnsafeRawBufferPointer(rebasing: whole[consumed..<(consumed + take)]),
                        to: position - segment.lowerBound)
                    if position + take == segment.upperBound, stores, segment == layout.byteRange(ofChunk: index) {
                        completed.append((index, buffer))
                    }
                }
                consumed += take
                position += take
            }
        }
        let (waiters, needsMore) = state.withLock { state -> ([CheckedContinuation<Void, Error>], Bool) in
            for (index, buffer) in newBuffers { state.buffers[index] = buffer }
            state.received += usable
            let waiters = Array(state.readWaiters.values)
            state.readWaiters = [:]
            let next = state.span.lowerBound + state.received
            // Past what readers asked for, more of the body is only worth reading to store it.
            let needsMore = next < state.span.upperBound && (next < state.keep.upperBound || stores)
            return (waiters, needsMore)
        }
        for (index, buffer) in completed {
            completedSink.yield((index, buffer.data(0..<layout.byteRange(ofChunk: index).count)))
        }
        for waiter in waiters { waiter.resume() }
        return needsMore
    }

    /// Ends the body: with `error`, readers past what arrived get it. The store finishes what it was handed.
    func finish(throwing error: Error? = nil) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Error>] in
            guard state.ending == nil else { return [] }
            state.ending = error.map { .failure($0) } ?? .success(())
            defer { state.readWaiters = [:] }
            return Array(state.readWaiters.values)
        }
        completedSink.finish()
        for waiter in waiters { waiter.resume() }
    }

    /// Chunk `index` is stored: its memory goes unless readers may still read it from here.
    func chunkStored(_ index: Int) {
        state.withLock { state in
            guard !layout.byteRange(ofChunk: index).overlaps(state.keep) else { return }
            state.buffers[index] = nil
            state.released.insert(index)
        }
    }

    /// Every chunk handed to the store has been dealt with.
    func storesFinished() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.storesDone = true
            defer { state.storeWaiters = [] }
            return state.storeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A read past the end of a fetch that ended without error (a body shorter than its range, caught by the
/// fetch's own checks first; this is the backstop).
struct VideoFetchEnded: Error {}

extension ResponseBody {
    /// Cancels a transfer whose body will not be read: an iterator made and dropped before the end does.
    func cancel() {
        _ = makeAsyncIterator()
    }
}

/// The memory of one chunk of a fetch, filled as bytes arrive and handed out as `Data` without copies.
///
/// `@unchecked Sendable` is sound: only the fetch's task writes, and only past the count it has published
/// (under the fetch's lock); readers read only below that count, bytes that never change again.
final class FetchBuffer: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Copies `bytes` in at `offset` (the fetch's task only).
    func copy(_ bytes: UnsafeRawBufferPointer, to offset: Int) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// The bytes `range` (already written) as `Data` that keeps this buffer alive, without copying.
    func data(_ range: Range<Int>) -> Data {
        guard !range.isEmpty else { return Data() }
        return Data(
            bytesNoCopy: base + range.lowerBound, count: range.count,
            deallocator: .custom { _, _ in withExtendedLifetime(self) {} }
        )
    }
}

/// A parsed `Content-Range: bytes <first>-<last>/<total>` (or `bytes */<total>`) header.
struct ContentRange: Sendable, Hashable {
    /// The bytes the body holds; `nil` for the unsatisfied form `*/<total>`.
    var range: Range<Int>?
    /// The complete length; `nil` when the server wrote `*`.
    var total: Int?

    /// Parses the header; anything malformed is `nil`.
    init?(_ header: String?) {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let value = Int(parts[1]), value >= 0 else { return nil }
            total = value
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]),
            first >= 0, last >= first, last < Int.max
        else { return nil }
        if let total, last >= total { return nil }
        range = first..<(last + 1)
    }
}
