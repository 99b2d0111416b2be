import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MediaAssets

/// A backend whose stores wait for the test to let them finish: a write under way.
final class HeldStores: CacheBackend {
    let inner = RecordingBackend()
    private let held = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let holding = Mutex(true)

    var heldCount: Int { held.withLock { $0.count } }

    func releaseAll() {
        holding.withLock { $0 = false }
        for waiter in held.withLock({ state in
            defer { state = [] }; return state
        }) { waiter.resume() }
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        if holding.withLock({ $0 }) {
            await withCheckedContinuation { continuation in held.withLock { $0.append(continuation) } }
        }
        try await inner.store(entry, forKey: key)
    }

    func entry(forKey key: CacheKey) async throws -> CacheEntry? { await inner.entry(forKey: key) }
    func removeEntry(forKey key: CacheKey) async throws { await inner.removeEntry(forKey: key) }
    // Through the protocol: a direct call on the actor would pick the protocol extension's default.
    func removeEntries(_ selection: EntrySelection) async throws {
        try await (inner as any CacheBackend).removeEntries(selection)
    }
    func removeAll() async throws { await inner.removeAll() }
    func statistics() async -> CacheStatistics { await inner.statistics() }
}

@Suite("Removing an asset and pins through the manager")
struct AssetRemovalTests {
    static let asset: CacheKey = "https://cdn.example/avatar.jpg"
    static let derived: [CacheKey] = [
        asset, asset.variant("circle(96)"), asset.variant("placeholder"), asset.variant("decoded(jpeg)"),
        asset.chunk(0), asset.chunkRecord,
    ]
    static let neighbours: [CacheKey] = ["https://cdn.example/avatar.jpg2", "https://cdn.example/other.jpg@circle(96)"]

    func makeManager(_ directory: TemporaryDirectory) throws -> AssetsManager {
        try AssetsManager(configuration: .init(disk: .init(directory: directory.appending("disk"))))
    }

    @Test func oneCallRemovesTheAssetFromEveryStorageTypeAndTier() async throws {
        // Given the asset's entries in memory, on disk, through .hybrid(.image) and in a custom backend
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        let custom = RecordingBackend()
        manager.register(custom, for: .custom("remote"))
        let storageTypes: [StorageType] = [.lru(.image), .disk, .hybrid(.lottie), .custom("remote")]
        for storageType in storageTypes {
            for key in Self.derived + Self.neighbours {
                try await manager.writeData(Data(key.rawValue.utf8), forKey: key, storageType: storageType)
            }
        }

        // When the asset is removed
        try await manager.removeAsset(forKey: Self.asset)

        // Then none of its entries is left anywhere, the neighbours all are, and each backend got one call
        for storageType in storageTypes + [.lru(.lottie), .hybrid(.image)] {
            for key in Self.derived {
                #expect(
                    try await manager.readData(forKey: key, storageType: storageType) == nil, "\(key) in \(storageType)"
                )
            }
        }
        for storageType in storageTypes {
            for key in Self.neighbours {
                #expect(
                    try await manager.readData(forKey: key, storageType: storageType) != nil, "\(key) in \(storageType)"
                )
            }
        }
        let calls = await custom.calls
        #expect(calls.removeSelections == 1 && calls.removes == 0)
    }

    @Test func aWriteUnderWayIsAwaitedSoItCannotLandAfterTheRemoval() async throws {
        // Given a variant of the asset handed to a backend whose store has not finished
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        let held = HeldStores()
        manager.register(held, for: .custom("slow"))
        let variant = Self.asset.variant("circle(96)")
        try await manager.storeInBackground(CacheEntry(data: Data([1])), forKey: variant, storageType: .custom("slow"))
        try await waitUntil("the store is under way") { held.heldCount == 1 }
        #expect(try await manager.readData(forKey: variant, storageType: .custom("slow")) == Data([1]))

        // When the asset is removed while the write is held
        let removal = Task { try await manager.removeAsset(forKey: Self.asset) }
        try await waitUntil("the removal waits for the write") { manager.runtime.pendingWrites.slotWaiterCount == 1 }
        #expect(await held.inner.calls.removeSelections == 0, "nothing was removed before the write finished")
        held.releaseAll()
        try await removal.value

        // Then the write finished first and the removal took it: nothing of the asset is left
        #expect(try await manager.readData(forKey: variant, storageType: .custom("slow")) == nil)
        #expect(await held.inner.keys.isEmpty)
    }

    @Test func aStagedWriteIsDroppedAndNeverLands() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        let held = HeldStores()
        manager.register(held, for: .custom("slow"))
        try await manager.storeInBackground(
            CacheEntry(data: Data([1])), forKey: Self.asset.chunk(3), storageType: .custom("slow"))
        try await waitUntil("the store is under way") { held.heldCount == 1 }
        let removal = Task { try await manager.removeAsset(forKey: Self.asset) }
        try await waitUntil("the removal waits") { manager.runtime.pendingWrites.slotWaiterCount == 1 }
        held.releaseAll()
        try await removal.value
        #expect(try await manager.cachedEntry(forKey: Self.asset.chunk(3), storageType: .custom("slow")) == nil)
    }

    @Test func aPinnedAssetSurvivesMemoryTrimsAndDiskSweepsThroughHybrid() async throws {
        // Given an asset pinned through .hybrid(.image), on a 1 MiB disk
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: directory.appending("disk"), sizeLimit: 1 << 20)))
        try await manager.pin(.asset(Self.asset), storageType: .hybrid(.image))
        let bytes = Data(repeating: 7, count: 100 << 10)
        try await manager.writeData(bytes, forKey: Self.asset, storageType: .hybrid(.image))
        try await manager.writeData(bytes, forKey: Self.asset.variant("circle(96)"), storageType: .hybrid(.image))

        // When memory is trimmed and the disk sweeps past its limit several times
        await manager.trimMemory()
        for index in 0..<40 {
            try await manager.writeData(bytes, forKey: CacheKey("filler-\(index)"), storageType: .hybrid(.image))
        }

        // Then the pinned entries are still in memory and on disk, and the statistics say so
        #expect(try await manager.readData(forKey: Self.asset, storageType: .lru(.image)) == bytes)
        #expect(try await manager.readData(forKey: Self.asset.variant("circle(96)"), storageType: .disk) == bytes)
        let statistics = await manager.statistics()
        #expect(statistics[.disk]?.pinnedCount == 2 && (statistics[.disk]?.evictions ?? 0) > 0)
        #expect(statistics[.lru(.image)]?.pinnedCount == 2)

        // And removing the asset removes pinned entries too
        try await manager.removeAsset(forKey: Self.asset)
        #expect(try await manager.readData(forKey: Self.asset, storageType: .hybrid(.image)) == nil)
    }

    @Test func aPinPastTheQuotaIsATypedErrorAndUndoneInEveryTier() async throws {
        // Given 2 MiB on disk under a 64 MiB memory partition (quota: a quarter of each)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: directory.appending("disk"), sizeLimit: 2 << 20)))
        try await manager.writeData(Data(count: 600 << 10), forKey: Self.asset, storageType: .hybrid(.image))

        // When the asset is pinned, the disk's quota (512 KiB) refuses it
        await #expect(throws: AssetsError.self) {
            try await manager.pin(.asset(Self.asset), storageType: .hybrid(.image))
        }

        // Then neither tier kept the pin
        let memory = try #require(try manager.backend(for: .lru(.image)) as? MemoryCache)
        let disk = try #require(try manager.backend(for: .disk) as? DiskCache)
        #expect(memory.pins.isEmpty && disk.pins.isEmpty)
    }
}
