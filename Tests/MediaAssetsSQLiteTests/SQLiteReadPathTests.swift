import Foundation
import MediaAssets
import Testing

@testable import MediaAssetsSQLite

/// Reads run on connections of their own: small entries on the caller's thread, large ones on the
/// read queue, and never behind the writer or another process's transaction.
@Suite("SQLiteBackend reads")
struct SQLiteReadPathTests {
    @Test(.timeLimit(.minutes(1)))
    func readsAreNotQueuedBehindTheWriter() async throws {
        // Given a small and a large entry, and the write queue held by a job that does not end yet
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 4 << 20, largestInlineRead: 32 << 10)
        try await backend.store(CacheEntry(data: payload(1, count: 1_000)), forKey: "small")
        try await backend.store(CacheEntry(data: payload(2, count: 100 << 10)), forKey: "large")
        let release = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            backend.queue.async {
                held.resume()
                release.wait()
            }
        }

        // When both are read, then both return while the writer is still held
        #expect(try await backend.entry(forKey: "small")?.data == payload(1, count: 1_000))
        #expect(try await backend.entry(forKey: "large")?.data == payload(2, count: 100 << 10))
        #expect(try await backend.entry(forKey: "absent") == nil)
        release.signal()
        await backend.checkInvariants()
    }

    @Test func readsDoNotWaitForAnotherConnectionsTransaction() async throws {
        // Given an entry, and another connection (another process) in the middle of a write to it
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(busyTimeout: .milliseconds(50))
        try await backend.store(
            CacheEntry(data: payload(1, count: 100), metadata: CacheMetadata(etag: "one")), forKey: "k")
        let other = try SQLiteConnection(path: file.url.path)
        defer { other.close() }
        try other.execute("BEGIN IMMEDIATE; UPDATE entries SET etag = 'uncommitted'", operation: "hold the write lock")

        // When the entry is read, then the last commit comes back at once, on the caller's thread
        #expect(try await backend.entry(forKey: "k")?.metadata.etag == "one")
        #expect(backend._readHandOffs == 0)

        // And a store, which must wait for the lock, gives up after the busy timeout
        await #expect(throws: AssetsError.self) {
            try await backend.store(CacheEntry(data: payload(2, count: 100)), forKey: "k")
        }
        try other.execute("ROLLBACK", operation: "release the write lock")
        #expect(try await backend.entry(forKey: "k")?.data == payload(1, count: 100))
    }

    @Test func largeEntriesAreReadOnTheReadQueueAndSmallOnesInline() async throws {
        // Given entries of 1 KiB, 12 KiB and 100 KiB, read inline up to 32 KiB
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 4 << 20, largestInlineRead: 32 << 10)
        let sizes = ["s": 1 << 10, "m1": 12 << 10, "m2": 12 << 10, "m3": 12 << 10, "large": 100 << 10]
        for (key, size) in sizes {
            try await backend.store(CacheEntry(data: payload(size, count: size)), forKey: CacheKey(key))
        }

        // When single entries are read, then only the large one is handed to the read queue
        #expect(try await backend.entry(forKey: "s")?.data.count == 1 << 10)
        #expect(backend._readHandOffs == 0)
        #expect(try await backend.entry(forKey: "large")?.data == payload(100 << 10, count: 100 << 10))
        #expect(backend._readHandOffs == 1)

        // And a batch is read inline until its sizes pass the limit, the rest in one hand-off
        let keys: [CacheKey] = ["s", "m1", "absent", "m2", "m3", "large", "s"]
        let found = try await backend.entries(forKeys: keys).map { $0?.data.count }
        let expected: [Int?] = [1 << 10, 12 << 10, nil, 12 << 10, 12 << 10, 100 << 10, 1 << 10]
        #expect(found == expected)
        #expect(backend._readHandOffs == 2)

        // And with no inline reads, every entry is read on the read queue (a miss, which copies
        // nothing, is still answered on the caller's thread)
        await backend.close()
        let queued = try file.open(sizeLimit: 4 << 20, largestInlineRead: 0)
        #expect(try await queued.entry(forKey: "s")?.data.count == 1 << 10)
        #expect(try await queued.entry(forKey: "m1")?.data.count == 12 << 10)
        #expect(try await queued.entry(forKey: "absent") == nil)
        #expect(queued._readHandOffs == 2)
    }
}
