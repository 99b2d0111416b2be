import Foundation
import MediaAssets
import TestSupport
import Testing

@Suite("AssetsManager")
struct AssetsManagerTests {
    private func makeManager(_ directory: TemporaryDirectory, clock: TestClock? = nil) throws -> AssetsManager {
        var configuration = AssetsManager.Configuration(disk: .init(directory: directory.appending("disk")))
        if let clock { configuration.now = clock.now }
        return try AssetsManager(configuration: configuration)
    }

    @Test func seedAPIRoutesByStorageType() async throws {
        // Given a manager with the default backends
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        let bytes = Data("avatar bytes".utf8)

        // When data is written to one image partition and to disk
        try await manager.writeData(bytes, forKey: "avatar", storageType: .lru(.image))
        try await manager.writeData(bytes, forKey: "clip", storageType: .disk)

        // Then each reads back only where it was written
        #expect(try await manager.readData(forKey: "avatar", storageType: .lru(.image)) == bytes)
        #expect(try await manager.readData(forKey: "avatar", storageType: .lru(.lottie)) == nil)
        #expect(try await manager.readData(forKey: "avatar", storageType: .disk) == nil)
        #expect(try await manager.readData(forKey: "clip", storageType: .disk) == bytes)

        try await manager.removeData(forKey: "avatar", storageType: .lru(.image))
        #expect(try await manager.readData(forKey: "avatar", storageType: .lru(.image)) == nil)
    }

    @Test func partitionsEvictOnlyTheirOwnEntries() async throws {
        // Given small image and lottie partitions
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = AssetsManager.Configuration(
            memoryPartitions: [.image: .init(costLimit: 1_000), .lottie: .init(costLimit: 1_000)],
            disk: nil
        )
        let manager = try AssetsManager(configuration: configuration)
        try await manager.writeData(Data(count: 600), forKey: "animation", storageType: .lru(.lottie))

        // When the image partition overflows
        for index in 0..<10 {
            try await manager.writeData(Data(count: 600), forKey: "image-\(index)", storageType: .lru(.image))
        }

        // Then the lottie entry is untouched
        #expect(try await manager.readData(forKey: "animation", storageType: .lru(.lottie)) != nil)
        let statistics = await manager.statistics()
        #expect(statistics[.lru(.image)]?.evictions == 9)
        #expect(statistics[.lru(.lottie)]?.evictions == 0)
    }

    @Test func unregisteredStorageTypeThrowsNamingItAndWhatIsRegistered() async throws {
        let manager = try AssetsManager(configuration: .init(disk: nil))
        let registered = manager.registeredStorageTypes
        #expect(registered == [.lru(.image), .lru(.lottie), .lru(.video)])
        await #expect(throws: AssetsError.backendNotRegistered(.custom("redis"), registered: registered)) {
            try await manager.writeData(Data(), forKey: "k", storageType: .custom("redis"))
        }
        // Without a disk cache, .hybrid cannot be composed either.
        await #expect(throws: AssetsError.backendNotRegistered(.hybrid(.image), registered: registered)) {
            _ = try await manager.readData(forKey: "k", storageType: .hybrid(.image))
        }
        // A misspelt custom name shows beside the one registered.
        manager.register(MemoryCache(limits: .init(costLimit: 1_000)), for: .custom("redis"))
        let description = AssetsError.backendNotRegistered(.custom("rdis"), registered: manager.registeredStorageTypes)
            .description
        #expect(
            description.contains(".custom(rdis) (registered: .custom(redis), .lru(image), .lru(lottie), .lru(video))"))
    }

    @Test func anUnregisteredBackendIsNoLongerRoutedToAndKeepsWhatItHolds() async throws {
        // Given a backend of the app's own under .custom("redis"), holding an entry written through the manager
        let manager = try AssetsManager(configuration: .init(disk: nil))
        let backend = MemoryCache(limits: .init(costLimit: 1_000))
        manager.register(backend, for: .custom("redis"))
        try await manager.writeData(Data([7]), forKey: "k", storageType: .custom("redis"))

        // When it is unregistered
        manager.unregister(.custom("redis"))

        // Then the manager no longer lists it or routes to it, and the backend still has the entry
        #expect(!manager.registeredStorageTypes.contains(.custom("redis")))
        await #expect(
            throws: AssetsError.backendNotRegistered(.custom("redis"), registered: manager.registeredStorageTypes)
        ) {
            _ = try await manager.readData(forKey: "k", storageType: .custom("redis"))
        }
        #expect(backend.entry(forKey: "k")?.data == Data([7]))
    }

    @Test func appDeclaredPartitionAndCustomBackend() async throws {
        // Given an app's own partition and its own backend
        let manager = try AssetsManager(configuration: .init(disk: nil))
        let fonts = LRUCacheType(rawValue: "fonts")
        let custom = RecordingBackend()
        manager.register(MemoryCache(limits: .init(costLimit: 1 << 20)), for: .lru(fonts))
        manager.register(custom, for: .custom("recording"))

        // When both are used through the manager
        try await manager.writeData(Data([1]), forKey: "font", storageType: .lru(fonts))
        try await manager.writeData(Data([2]), forKey: "thing", storageType: .custom("recording"))

        // Then they hold their entries
        #expect(try await manager.readData(forKey: "font", storageType: .lru(fonts)) == Data([1]))
        #expect(try await manager.readData(forKey: "thing", storageType: .custom("recording")) == Data([2]))
        #expect(await custom.calls == .init(reads: 1, stores: 1, removes: 0, removeAlls: 0))
    }

    @Test func registeringReplacesAndHybridFollows() async throws {
        // Given a manager whose .disk is replaced by a custom backend
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        _ = try manager.backend(for: .hybrid(.image))
        let replacement = RecordingBackend()
        manager.register(replacement, for: .disk)

        // When writing through the hybrid
        try await manager.writeData(Data([42]), forKey: "k", storageType: .hybrid(.image))

        // Then the bytes went to the replacement and into the image partition
        #expect(await replacement.keys == ["k"])
        #expect(try await manager.readData(forKey: "k", storageType: .lru(.image)) == Data([42]))
    }

    @Test func hybridPromotesDiskHitsAndKeepsDecodedObjectsInMemoryOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try makeManager(directory)
        let entry = CacheEntry(data: Data("png".utf8), decoded: DecodedObject("decoded bitmap", cost: 1_000))
        try await manager.store(entry, forKey: "styled", storageType: .hybrid(.image))

        // The memory partition holds the decoded object; the disk holds the bytes only.
        #expect(
            try await manager.cachedEntry(forKey: "styled", storageType: .lru(.image))?.decoded?.value as? String
                == "decoded bitmap")
        let diskEntry = try #require(try await manager.cachedEntry(forKey: "styled", storageType: .disk))
        #expect(diskEntry.decoded == nil && diskEntry.data == Data("png".utf8))

        // After memory is trimmed, a hybrid read comes from disk and is promoted back.
        await manager.trimMemory()
        #expect(try await manager.readData(forKey: "styled", storageType: .lru(.image)) == nil)
        #expect(try await manager.readData(forKey: "styled", storageType: .hybrid(.image)) == Data("png".utf8))
        #expect(try await manager.readData(forKey: "styled", storageType: .lru(.image)) == Data("png".utf8))
        // The composition is a two-tier TieredBackend; its tier counters split the hits as a
        // memory/storage composition's did: one storage hit, promoted once.
        let hybrid = try #require(try manager.backend(for: .hybrid(.image)) as? TieredBackend)
        #expect(hybrid.tierStatistics[1].hits == 1 && hybrid.tierStatistics[1].promotions == 0)
        #expect(hybrid.tierStatistics[0].promotions == 1 && hybrid.tierStatistics[0].hits == 0)
        #expect(await hybrid.statistics().hits == 1)
    }

    @Test func removeAllAndRemoveExpired() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let manager = try makeManager(directory, clock: clock)
        try await manager.store(
            CacheEntry(data: Data([1]), metadata: .init(expires: clock.date + 10)), forKey: "short",
            storageType: .hybrid(.image))
        try await manager.store(CacheEntry(data: Data([2])), forKey: "long", storageType: .hybrid(.image))
        clock.advance(by: 20)
        try await manager.removeExpired()
        let statistics = await manager.statistics()
        #expect(statistics[.disk]?.count == 1)
        #expect(statistics[.lru(.image)]?.count == 1)

        try await manager.removeAll(storageType: .hybrid(.image))
        #expect(await manager.statistics()[.disk]?.count == 0)
    }

    @Test func defaultDiskDirectoryFollowsXDG() {
        let directory = DiskCache.defaultDirectory()
        #expect(directory.lastPathComponent == "MediaAssets")
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            #expect(directory.path.hasPrefix(xdg))
        } else {
            #expect(directory.path.hasSuffix(".cache/MediaAssets"))
        }
    }
}
