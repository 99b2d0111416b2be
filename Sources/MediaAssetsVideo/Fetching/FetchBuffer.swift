import Foundation

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
