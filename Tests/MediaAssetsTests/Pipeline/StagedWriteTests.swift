import Foundation
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@testable import MediaAssets

@Suite("Staged writes: bounded in bytes, drained by shutdown")
struct StagedWriteTests {
    static let entrySize = 20 << 10

    /// A manager over `directory` whose `.custom("slow")` holds every store until released.
    static func slowManager(
        _ directory: TemporaryDirectory, limit: Int
    ) throws -> (manager: AssetsManager, disk: HeldStores) {
        let manager = try AssetsManager.forTesting(directory: directory, stagedWriteLimit: limit)
        let disk = HeldStores()
        manager.register(disk, for: .custom("slow"))
        return (manager, disk)
    }

    /// Stores `count` bytes under `key` in `.custom("slow")` behind the caller's back (once staging has room).
    static func stage(_ count: Int, as key: CacheKey, in manager: AssetsManager) async throws {
        try await manager.storeInBackground(
            CacheEntry(data: testBytes(count: count)), forKey: key, storageType: .custom("slow"))
    }

    @Test("under a disk that holds every store, staged bytes never pass the limit and asks wait for room")
    func boundHoldsUnderASlowDisk() async throws {
        // Given a limit of three entries and a disk that holds every store
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let limit = 3 * Self.entrySize
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (manager, disk) = try Self.slowManager(directory, limit: limit)
        let pipeline = AssetPipeline(manager: manager, decoder: ThreadRecordingDecoder(threads: ThreadNames()))
        let urls = (0..<10).map { environment.serve("/blob-\($0)", testBytes(count: Self.entrySize, seed: UInt64($0))) }

        // When ten downloads are asked for at once
        let asks = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for url in urls {
                    group.addTask {
                        _ = try await pipeline.value(
                            for: AssetRequest(url: url), options: .init(), storageType: .custom("slow"))
                    }
                }
                try await group.waitForAll()
            }
        }

        // Then three are staged (their stores held) and the rest wait for room, never staged beyond the limit
        try await waitUntil("three stores held, the rest waiting for room") {
            disk.heldCount == 3 && manager.runtime.pendingWrites.roomWaiterCount == 7
        }
        #expect(manager.stagedWriteBytes == limit)
        #expect(manager.runtime.pendingWrites.peakStagedBytes == limit)

        // And once the disk catches up, every ask finishes and every entry is stored, still within the limit
        disk.releaseAll()
        try await asks.value
        await manager.shutdown()
        #expect(manager.runtime.pendingWrites.peakStagedBytes <= limit)
        #expect(manager.stagedWriteBytes == 0)
        #expect(await disk.inner.keys.count == 10)
    }

    @Test("an entry larger than the limit waits until nothing else is staged, then is staged alone")
    func largerEntryIsStagedAlone() async throws {
        // Given one small entry staged against a disk that holds stores, and a limit smaller than the next entry
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (manager, disk) = try Self.slowManager(directory, limit: Self.entrySize)
        try await Self.stage(1_000, as: "small", in: manager)
        try await waitUntil("the small store is held") { disk.heldCount == 1 }

        // When a larger entry is stored
        let large = Task { try await Self.stage(3 * Self.entrySize, as: "large", in: manager) }
        try await waitUntil("the large entry waits") { manager.runtime.pendingWrites.roomWaiterCount == 1 }
        #expect(manager.stagedWriteBytes == 1_000)

        // Then it is staged once the small one is written, alone
        disk.releaseAll()
        try await large.value
        await manager.shutdown()
        #expect(manager.runtime.pendingWrites.peakStagedBytes == 3 * Self.entrySize)
        #expect(await disk.inner.keys.count == 2)
    }

    @Test("a staging cancelled while it waits for room stores nothing and lets the next one in")
    func cancelledWaiterStoresNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (manager, disk) = try Self.slowManager(directory, limit: Self.entrySize)
        try await Self.stage(Self.entrySize, as: "first", in: manager)
        try await waitUntil("the first store is held") { disk.heldCount == 1 }
        let waiting = Task { try await Self.stage(Self.entrySize, as: "cancelled", in: manager) }
        try await waitUntil("the second waits for room") { manager.runtime.pendingWrites.roomWaiterCount == 1 }

        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(manager.runtime.pendingWrites.roomWaiterCount == 0)
        disk.releaseAll()
        await manager.shutdown()
        #expect(await disk.inner.keys == ["first"])
    }

    @Test("shutdown returns only once a held write has reached its backend")
    func shutdownDrainsStagedWrites() async throws {
        // Given a result whose bytes are staged while the disk holds the store
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (manager, disk) = try Self.slowManager(directory, limit: 1 << 20)
        let url = environment.serve("/last", testBytes(count: 4_096))
        _ = try await manager.data(for: AssetRequest(url: url), storageType: .custom("slow"))
        try await waitUntil("the store is held") { disk.heldCount == 1 }

        // When the program shuts the manager down
        let finished = SharedCount()
        let shutdown = Task {
            await manager.shutdown()
            finished.add()
        }

        // Then shutdown waits for the store, and returns once the bytes are in the backend
        try await waitUntil("shutdown waits for the write") { manager.runtime.pendingWrites.flushWaiterCount == 1 }
        #expect(finished.value == 0)
        disk.releaseAll()
        await shutdown.value
        #expect(await disk.inner.keys == [environment.key("/last")])
    }

    @Test("shutdown stops every prefetch of the manager's prefetchers, and they start nothing afterwards")
    func shutdownStopsPrefetches() async throws {
        // Given a prefetcher with one download held at the origin and more queued
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let paths = (0..<4).map { "/prefetch-\($0)" }
        for path in paths { environment.serve(path, testBytes(count: 1_000), behavior: .init(gated: true)) }
        let prefetcher = Prefetcher(manager: environment.manager, maxConcurrentRequests: 1)
        prefetcher.start(paths.map { AssetRequest(url: environment.origin.url(for: $0)) })
        try await environment.origin.waitForInFlight(path: paths[0], count: 1)

        // When the manager shuts down
        await environment.manager.shutdown()

        // Then nothing is queued or running, and a later start is ignored
        #expect(prefetcher.pendingCount == 0)
        prefetcher.start([AssetRequest(url: environment.origin.url(for: paths[1]))])
        #expect(prefetcher.pendingCount == 0)
        let late = Prefetcher(manager: environment.manager)
        late.start([AssetRequest(url: environment.origin.url(for: paths[2]))])
        #expect(late.pendingCount == 0)
        for path in paths { environment.origin.release(path) }
        #expect(environment.origin.requestCount(for: paths[1]) == 0)
    }

    @Test("shutdown waits for background work, and for the writes it stages")
    func shutdownWaitsForBackgroundWork() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (manager, disk) = try Self.slowManager(directory, limit: 1 << 20)
        let gate = AsyncGate()
        manager.runtime.runInBackground {
            await gate.wait()
            try? await Self.stage(1, as: "derived", in: manager)
        }
        let finished = SharedCount()
        let shutdown = Task {
            await manager.shutdown()
            finished.add()
        }
        await gate.open()
        try await waitUntil("the derived store is held") { disk.heldCount == 1 }
        #expect(finished.value == 0)
        disk.releaseAll()
        await shutdown.value
        #expect(await disk.inner.keys == ["derived"])
    }
}
