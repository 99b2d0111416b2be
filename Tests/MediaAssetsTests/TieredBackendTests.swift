import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

@Suite("TieredBackend")
struct TieredBackendTests {
    static let fixtures = [
        BackendFixture(
            "tiered memory → disk → custom",
            make: { directory in
                TieredBackend(tiers: [
                    MemoryCache(limits: .init(costLimit: 64 << 20)),
                    try DiskCache(directory: directory.appending("disk"), sizeLimit: 64 << 20),
                    RecordingBackend(),
                ])
            },
            pinned: { directory, limit, quota in
                TieredBackend(tiers: [
                    MemoryCache(limits: .init(costLimit: 64 << 20, pinnedQuota: quota)),
                    try DiskCache(
                        configuration: .init(
                            directory: directory.appending("disk"), sizeLimit: limit ?? 64 << 20, pinnedQuota: quota)),
                    RecordingBackend(pinnedQuota: quota),
                ])
            }
        )
    ]

    /// Every check that needs no more than a backend, and the pin checks (the limit and failed-store
    /// checks take fixtures of their own where the suite has them).
    static let checks = BackendConformance.allCases.filter {
        !["limits", "failedStoreKeepsWhatWasCached", "pinsSurviveEviction"].contains($0.rawValue)
    }

    @Test(arguments: fixtures, checks)
    func conformance(fixture: BackendFixture, check: BackendConformance) async throws {
        try await check.run(on: fixture)
    }

    @Test func readsFallThroughAndPromoteIntoFasterTiers() async throws {
        // Given memory → disk → remote, with an entry only in the remote tier
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let memory = MemoryCache(limits: .init(costLimit: 1 << 20))
        let disk = try DiskCache(directory: directory.appending("disk"))
        let remote = RecordingBackend()
        let tiered = TieredBackend(tiers: [memory, disk, remote])
        try await remote.store(CacheEntry(data: Data("shared".utf8)), forKey: "k")

        // When it is read twice
        let first = try await tiered.entry(forKey: "k")
        let second = try await tiered.entry(forKey: "k")

        // Then the remote served the first read only, and both faster tiers now hold the bytes
        #expect(first?.data == Data("shared".utf8))
        #expect(second?.data == Data("shared".utf8))
        #expect(await remote.calls.reads == 1)
        #expect(memory.entry(forKey: "k")?.data == Data("shared".utf8))
        #expect(try await disk.entry(forKey: "k")?.data == Data("shared".utf8))
        let counters = tiered.tierStatistics
        #expect(counters.map(\.hits) == [1, 0, 1])
        #expect(counters.map(\.promotions) == [1, 1, 0])
    }

    @Test func writesGoThroughEveryTierAndOnlyTheFirstKeepsTheDecodedObject() async throws {
        // Given three in-memory tiers
        let tiers = [MemoryCache(limits: .init(costLimit: 1 << 20)), MemoryCache(limits: .init(costLimit: 1 << 20))]
        let remote = RecordingBackend()
        let tiered = TieredBackend(tiers: [tiers[0], tiers[1], remote])

        // When an entry with a decoded object is stored
        try await tiered.store(CacheEntry(data: Data([1]), decoded: DecodedObject("bitmap", cost: 10)), forKey: "k")

        // Then every tier has the bytes, and the decoded object stays in the first
        #expect(tiers[0].entry(forKey: "k")?.decoded != nil)
        #expect(tiers[1].entry(forKey: "k")?.decoded == nil)
        #expect(await remote.entry(forKey: "k")?.data == Data([1]))
        #expect(await remote.calls.stores == 1)
    }

    @Test func aFailingTierNeverFailsAReadAnotherTierServes() async throws {
        // Given a failing middle tier and the entry in the last tier
        let memory = MemoryCache(limits: .init(costLimit: 1 << 20))
        let remote = RecordingBackend()
        let tiered = TieredBackend(tiers: [.required(memory), .bestEffort(FailingBackend()), .required(remote)])
        try await remote.store(CacheEntry(data: Data("ok".utf8)), forKey: "k")

        // When it is read
        let entry = try await tiered.entry(forKey: "k")

        // Then the read is served, the failure counted, and memory promoted
        #expect(entry?.data == Data("ok".utf8))
        #expect(tiered.tierStatistics[1].readErrors == 1)
        #expect(tiered.tierStatistics[1].writeErrors == 1)  // the promotion into it
        #expect(memory.entry(forKey: "k") != nil)
    }

    @Test func bestEffortWriteFailuresAreCountedRequiredOnesThrow() async throws {
        // Given a best-effort failing tier behind memory
        let memory = MemoryCache(limits: .init(costLimit: 1 << 20))
        let tolerant = TieredBackend(tiers: [.required(memory), .bestEffort(FailingBackend())])

        // When a store goes through, then it succeeds locally and the failure is counted
        try await tolerant.store(CacheEntry(data: Data([1])), forKey: "k")
        #expect(memory.entry(forKey: "k")?.data == Data([1]))
        #expect(tolerant.tierStatistics[1].writeErrors == 1)

        // Given the same failing tier required, when a store goes through, then it throws and
        // the faster tier keeps what it had
        let strictMemory = MemoryCache(limits: .init(costLimit: 1 << 20))
        try strictMemory.store(CacheEntry(data: Data("old".utf8)), forKey: "k")
        let strict = TieredBackend(tiers: [strictMemory, FailingBackend()])
        await #expect(throws: AssetsError.self) {
            try await strict.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
        }
        #expect(strictMemory.entry(forKey: "k")?.data == Data("old".utf8))
    }

    @Test func aSlowReadNeverPromotesOlderBytesOverNewer() async throws {
        // Given a slow last tier holding old bytes, gated mid-read
        let memory = MemoryCache(limits: .init(costLimit: 1 << 20))
        let slow = GatedBackend()
        try await slow.inner.store(CacheEntry(data: Data("old".utf8)), forKey: "k")
        let tiered = TieredBackend(tiers: [memory, slow])
        let read = Task { try await tiered.entry(forKey: "k") }
        try await waitUntil("the read is parked in the slow tier") { slow.parkedReads == 1 }

        // When new bytes are stored meanwhile and the read then completes
        try await tiered.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
        slow.open()
        _ = try await read.value

        // Then memory holds the new bytes, not the old ones the slow read saw
        #expect(memory.entry(forKey: "k")?.data == Data("new".utf8))
        #expect(tiered.tierStatistics[0].promotions == 0)
    }
}

/// A backend whose every operation throws, as an unreachable remote store does.
private struct FailingBackend: CacheBackend {
    private var failure: AssetsError { .readFailed(key: "any", path: "unreachable", reason: "down") }
    func entry(forKey key: CacheKey) async throws -> CacheEntry? { throw failure }
    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { throw failure }
    func removeEntry(forKey key: CacheKey) async throws { throw failure }
    func removeAll() async throws { throw failure }
    func statistics() async -> CacheStatistics { CacheStatistics() }
}

/// A backend whose reads wait until `open()`; writes go straight through.
private final class GatedBackend: CacheBackend {
    let inner = RecordingBackend()
    private let gate = Mutex<(isOpen: Bool, parked: Int, waiters: [CheckedContinuation<Void, Never>])>((false, 0, []))

    var parkedReads: Int { gate.withLock { $0.parked } }

    func open() {
        let waiters = gate.withLock { gate in
            gate.isOpen = true
            defer { gate.waiters.removeAll() }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        await withCheckedContinuation { continuation in
            let runNow = gate.withLock { gate -> Bool in
                guard !gate.isOpen else { return true }
                gate.parked += 1
                gate.waiters.append(continuation)
                return false
            }
            if runNow { continuation.resume() }
        }
        return await inner.entry(forKey: key)
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { try await inner.store(entry, forKey: key) }
    func removeEntry(forKey key: CacheKey) async throws { await inner.removeEntry(forKey: key) }
    func removeAll() async throws { await inner.removeAll() }
    func statistics() async -> CacheStatistics { await inner.statistics() }
}
