import Foundation
import MediaAssets
import TestSupport
import Testing

/// Many tasks hammering set/get/remove on every backend, then the structures and counters checked.
@Suite("Thread safety")
struct ThreadSafetyTests {
    private static let taskCount = 16
    private static let operationsPerTask = 300

    private static func hammer(_ backend: any CacheBackend) async throws -> (reads: Int, stores: Int) {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(task))
                    var reads = 0
                    var stores = 0
                    for _ in 0..<operationsPerTask {
                        let key = CacheKey("key-\(Int.random(in: 0..<64, using: &generator))")
                        switch Int.random(in: 0..<10, using: &generator) {
                        case 0..<4:
                            let size = Int.random(in: 0..<2_048, using: &generator)
                            try await backend.store(
                                CacheEntry(data: Data(repeating: UInt8(size % 251), count: size)), forKey: key)
                            stores += 1
                        case 4..<9:
                            if let data = try await backend.entry(forKey: key)?.data {
                                #expect(
                                    data.allSatisfy { $0 == UInt8(data.count % 251) }, "a read returned mixed bytes")
                            }
                            reads += 1
                        default:
                            try await backend.removeEntry(forKey: key)
                        }
                    }
                    return (reads, stores)
                }
            }
            return try await group.reduce(into: (0, 0)) {
                $0.0 += $1.0; $0.1 += $1.1
            }
        }
    }

    @Test func memoryCache() async throws {
        let cache = MemoryCache(limits: .init(costLimit: 40_000, countLimit: 48))
        let counts = try await Self.hammer(cache)
        cache.checkInvariants()
        let statistics = cache.statistics()
        #expect(statistics.hits + statistics.misses == counts.reads)
        #expect(statistics.writes + statistics.rejectedTooLarge == counts.stores)
        #expect(statistics.cost <= 40_000 && statistics.count <= 48)
    }

    @Test func diskCache() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, sizeLimit: 60_000)
        let counts = try await Self.hammer(cache)
        await cache.checkInvariants()
        let statistics = await cache.statistics()
        #expect(statistics.hits + statistics.misses == counts.reads)
        #expect(statistics.writes == counts.stores)
        #expect(statistics.bytes <= 60_000)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0 != ".lock" }
        #expect(files.count == statistics.count, "index and directory agree")
    }

    @Test func hybridBackend() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let memory = MemoryCache(limits: .init(costLimit: 20_000))
        let disk = try DiskCache(directory: directory.url, sizeLimit: 80_000)
        let counts = try await Self.hammer(TieredBackend(memory: memory, storage: disk))
        memory.checkInvariants()
        await disk.checkInvariants()
        #expect(await disk.statistics().writes == counts.stores)
    }

    @Test func registryUnderConcurrentRegistration() async throws {
        let manager = try AssetsManager(configuration: .init(disk: nil))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let name = "backend-\((task + round) % 4)"
                        if round.isMultiple(of: 3) {
                            manager.register(MemoryCache(limits: .init(costLimit: 1_000)), for: .custom(name))
                        } else {
                            _ = try? await manager.readData(forKey: "k", storageType: .custom(name))
                        }
                    }
                }
            }
        }
        #expect(manager.registry.registeredStorageTypes.count == 7)
    }
}
