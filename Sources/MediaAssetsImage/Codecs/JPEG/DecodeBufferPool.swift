import Synchronization

/// A few decode buffers lent out between decodes, so an intermediate buffer (a JPEG's stored pixels before
/// they are turned upright) does not cost fresh pages on every image: a new 10 MP RGBA buffer is 10,000
/// page faults, 6–9 % of a decode's time spent in the kernel.
///
/// Bounded: at most `maximumBufferCount` idle buffers holding at most `maximumIdleBytes` together are kept;
/// a larger ask gets a buffer of its own, freed after use. Thread-safe: each buffer is lent to one caller at a
/// time, and the lock is never held while a caller uses it.
final class DecodeBufferPool: Sendable {
    /// How often buffers were made and lent again.
    struct Counts: Sendable, Hashable {
        /// Buffers allocated because no idle one was large enough.
        var allocations = 0
        /// Asks served by an idle buffer.
        var reuses = 0
    }

    private struct State {
        var idle: [[UInt8]] = []
        var counts = Counts()
    }

    /// The pool JPEG decoding uses: up to 4 buffers, 64 MiB in all (a 12 MP photo's RGBA is 48 MB).
    static let shared = DecodeBufferPool(maximumBufferCount: 4, maximumIdleBytes: 64 << 20)

    let maximumBufferCount: Int
    let maximumIdleBytes: Int
    private let state = Mutex(State())

    init(maximumBufferCount: Int, maximumIdleBytes: Int) {
        self.maximumBufferCount = maximumBufferCount
        self.maximumIdleBytes = maximumIdleBytes
    }

    /// The counters so far.
    var counts: Counts { state.withLock { $0.counts } }

    /// Calls `body` with `byteCount` bytes of uninitialised memory, kept for the next caller afterwards.
    func withBuffer<Result>(
        byteCount: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        var buffer = take(byteCount)
        defer { giveBack(buffer) }
        return try buffer.withUnsafeMutableBytes { bytes in
            try body(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<byteCount]))
        }
    }

    /// The smallest idle buffer of at least `byteCount` bytes, or a new one.
    private func take(_ byteCount: Int) -> [UInt8] {
        let reused = state.withLock { state -> [UInt8]? in
            let fitting = state.idle.indices.filter { state.idle[$0].count >= byteCount }
            guard let best = fitting.min(by: { state.idle[$0].count < state.idle[$1].count }) else {
                state.counts.allocations += 1
                return nil
            }
            state.counts.reuses += 1
            return state.idle.remove(at: best)
        }
        // Every byte a caller reads it has written first (the decoder fills the rows it returns).
        return reused ?? [UInt8](unsafeUninitializedCapacity: byteCount) { _, initialized in initialized = byteCount }
    }

    /// Keeps `buffer` if it fits the bounds, dropping smaller idle buffers to make room.
    private func giveBack(_ buffer: [UInt8]) {
        guard buffer.count <= maximumIdleBytes else { return }
        let dropped = state.withLock { state -> [[UInt8]] in
            state.idle.append(buffer)
            state.idle.sort { $0.count > $1.count }
            var dropped: [[UInt8]] = []
            while state.idle.count > maximumBufferCount
                || state.idle.reduce(0, { $0 + $1.count }) > maximumIdleBytes
            {
                dropped.append(state.idle.removeLast())
            }
            return dropped
        }
        _ = dropped  // Freed here, outside the lock.
    }
}
