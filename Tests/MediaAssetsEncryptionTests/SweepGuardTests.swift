import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

@testable import MediaAssetsEncryption

/// A storage whose read of one name hands back what it held when the read began, but only once the
/// test releases it: the sweep's read of an entry that a store replaces meanwhile.
final class GatedStorage: CacheBackend {
    let inner = RecordingBackend()
    private let gate = Mutex<(name: CacheKey?, parked: CheckedContinuation<Void, Never>?, reached: Bool)>(
        (nil, nil, false))

    func hold(_ name: CacheKey) { gate.withLock { $0.name = name } }
    var reached: Bool { gate.withLock { $0.reached } }

    func release() {
        let parked = gate.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = (nil, nil, state.reached) }
            return state.parked
        }
        parked?.resume()
    }

    func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        let found = await inner.entry(forKey: key)
        guard gate.withLock({ $0.name == key }) else { return found }
        await withCheckedContinuation { continuation in
            gate.withLock { state in
                state.parked = continuation
                state.reached = true
            }
        }
        return found
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { try await inner.store(entry, forKey: key) }
    func removeEntry(forKey key: CacheKey) async throws { await inner.removeEntry(forKey: key) }
    func removeAll() async throws { await inner.removeAll() }
    func statistics() async -> CacheStatistics { await inner.statistics() }
    func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        inner.storedKeys(batchSize: batchSize)
    }
}

@Suite("Encryption at rest: the sweep and concurrent writes")
struct SweepGuardTests {
    @Test func aStoreDuringTheSweepOfItsEntryIsNotOverwritten() async throws {
        // Given an entry sealed with k1, and k2 made current
        let storage = GatedStorage()
        let ring = TestKeys.ring()
        let encrypted = EncryptedBackend(wrapping: storage, keys: ring)
        try await encrypted.store(CacheEntry(data: Data("old".utf8)), forKey: "k")
        ring.rotate(to: TestKeys.key("k2", fill: 2))

        // When the sweep has read the old value, and a new value is stored before it writes back
        storage.hold(try encrypted.storageName("k"))
        let sweep = Task { try await encrypted.sweep() }
        try await waitUntil("the sweep read the entry") { storage.reached }
        let stored = SharedCount()
        let store = Task {
            try await encrypted.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
            stored.add()
        }
        try await waitUntil("the store waits for the sweep, or is done") {
            encrypted.writes.waiting > 0 || stored.value == 1
        }
        storage.release()
        let report = try await sweep.value
        try await store.value

        // Then the newer value stays: the sweep resealed the old one before the store, never after
        #expect(try await encrypted.entry(forKey: "k")?.data == Data("new".utf8))
        #expect(report.resealed == 1, "\(report)")
        #expect(try await encrypted.sealingKeyID(of: "k") == "k2")
    }
}
