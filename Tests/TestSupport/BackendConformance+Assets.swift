import Foundation
import MediaAssets
import Testing

/// The checks added with asset removal, key listing and pins.
extension BackendConformance {
    /// The pinned quota the quota check gives its fixture.
    public static let smallPinnedQuota = 4_096

    func checkRemoveAsset(_ backend: any CacheBackend) async throws {
        // Given an asset with everything derived from it, an asset whose key holds glob and range
        // characters, and neighbours that share all but the separator
        let asset: CacheKey = "https://cdn.example/p.jpg"
        let derived: [CacheKey] = [
            asset, "\(asset)@circle(96)", "\(asset)@placeholder", "\(asset)@decoded(jpeg)", "\(asset)#0",
            "\(asset)#63", "\(asset)#meta", "\(asset)@circle(96)@placeholder",
        ]
        let glob: CacheKey = "g*[a-z]?\\"
        let globDerived: [CacheKey] = [glob, "\(glob)@v", "\(glob)#0"]
        let kept: [CacheKey] = [
            "https://cdn.example/p.jpg2", "https://cdn.example/p.jp", "https://cdn.example/p.jpg?x=1",
            "other@https://cdn.example/p.jpg", "https://cdn.example/p.jpgA", "https://cdn.example/p.jpg$",
            "gX[a-z]?\\@v", "g*[a-z]?\\z", "g*b?\\@v",
        ]
        for key in derived + globDerived + kept {
            try await backend.store(CacheEntry(data: Data(key.rawValue.utf8)), forKey: key)
        }

        // When the assets are removed, one call each
        try await backend.removeEntries(.asset(asset))
        try await backend.removeEntries(.asset(glob))

        // Then every derived entry is gone, and only those
        for key in derived + globDerived { #expect(try await backend.entry(forKey: key) == nil, "\(key) removed") }
        for key in kept {
            #expect(try await backend.entry(forKey: key)?.data == Data(key.rawValue.utf8), "\(key) kept")
        }
        #expect(await backend.statistics().count == kept.count)

        // And removing an asset that is not there is not an error
        try await backend.removeEntries(.asset("never stored"))
    }

    func checkStoredKeys(_ backend: any CacheBackend) async throws {
        // Given entries under plain and hostile keys
        let keys = Array(Self.hostileKeySamples.prefix(11)) + (0..<20).map { CacheKey("listed-\($0)") }
        for key in keys { try await backend.store(CacheEntry(data: Data([1])), forKey: key) }

        // When the keys are listed in small batches
        var listed: [CacheKey] = []
        for try await batch in backend.storedKeys(batchSize: 7) {
            #expect(batch.count <= 7 || batch.count <= 1_000, "batches stay near the asked size")
            listed += batch
        }

        // Then each stored key is listed once
        #expect(listed.count == keys.count, "\(listed.count) listed")
        #expect(Set(listed) == Set(keys))
    }

    func checkPins(_ backend: any CacheBackend) async throws {
        // Given a key pin and an asset pin, one made before anything is stored
        try await backend.pin(.key("own-avatar"))
        try await backend.pin(.asset("onboarding.json"))
        try await backend.pin(.asset("onboarding.json"))
        let pinned: [(CacheKey, Int)] = [("own-avatar", 100), ("onboarding.json", 200), ("onboarding.json@v", 300)]
        for (key, size) in pinned { try await backend.store(CacheEntry(data: Data(count: size)), forKey: key) }
        try await backend.store(CacheEntry(data: Data(count: 50)), forKey: "other")
        try await backend.store(CacheEntry(data: Data(count: 50)), forKey: "own-avatar@circle")

        // Then the statistics count what the pins cover
        var statistics = await backend.statistics()
        #expect(statistics.pinnedCount == 3, "\(statistics)")
        #expect(statistics.pinnedBytes >= 600 && statistics.pinnedBytes < statistics.bytes, "\(statistics)")

        // When the key pin goes, its entry is no longer pinned; the asset's still are
        try await backend.unpin(.key("own-avatar"))
        try await backend.unpin(.key("never pinned"))
        statistics = await backend.statistics()
        #expect(statistics.pinnedCount == 2, "\(statistics)")
        #expect(try await backend.entry(forKey: "own-avatar") != nil)

        // And pinned entries can still be removed, by key and with their asset, while the pin stays
        try await backend.removeEntry(forKey: "onboarding.json@v")
        #expect(await backend.statistics().pinnedCount == 1)
        try await backend.removeEntries(.asset("onboarding.json"))
        try await backend.removeAll()
        statistics = await backend.statistics()
        #expect(statistics.count == 0 && statistics.pinnedCount == 0 && statistics.pinnedBytes == 0, "\(statistics)")
        try await backend.store(CacheEntry(data: Data(count: 10)), forKey: "onboarding.json#0")
        #expect(await backend.statistics().pinnedCount == 1, "the asset pin outlives removeAll")
    }

    func checkPinnedQuota(_ backend: any CacheBackend) async throws {
        // Given an asset pinned under a 4 KiB quota, holding two entries of 1,500 bytes
        try await backend.pin(.asset("q"))
        try await backend.store(CacheEntry(data: Data(repeating: 1, count: 1_500)), forKey: "q@1")
        try await backend.store(CacheEntry(data: Data(repeating: 2, count: 1_500)), forKey: "q@2")
        let before = await backend.statistics()

        // When a third would pass the quota, the store throws the typed error and changes nothing
        do {
            try await backend.store(CacheEntry(data: Data(count: 1_500)), forKey: "q@3")
            Issue.record("a store past the pinned quota succeeded")
        } catch AssetsError.pinnedQuotaExceeded(let key, let bytes, let pinnedBytes, let quota) {
            #expect(key == "q@3" && bytes >= 1_500 && quota == Self.smallPinnedQuota && pinnedBytes >= 3_000)
        }
        #expect(try await backend.entry(forKey: "q@3") == nil)
        #expect(await backend.statistics().pinnedBytes == before.pinnedBytes)

        // And replacing a pinned entry counts it once
        try await backend.store(CacheEntry(data: Data(repeating: 3, count: 1_400)), forKey: "q@1")
        #expect(try await backend.entry(forKey: "q@1")?.data == Data(repeating: 3, count: 1_400))

        // And a pin whose entries would pass the quota throws and pins nothing
        try await backend.store(CacheEntry(data: Data(count: 1_500)), forKey: "free")
        await #expect(throws: AssetsError.self) { try await backend.pin(.key("free")) }
        #expect(await backend.statistics().pinnedCount == 2)

        // And once the asset is unpinned, the same pin fits
        try await backend.unpin(.asset("q"))
        #expect(await backend.statistics().pinnedCount == 0)
        try await backend.pin(.key("free"))
        #expect(await backend.statistics().pinnedCount == 1)
    }

    func checkPinsSurviveEviction(_ backend: any CacheBackend) async throws {
        let limit = try #require(backend.byteLimit)
        // Given pinned entries stored first and never read again
        try await backend.pin(.key("keep"))
        try await backend.pin(.asset("keepers"))
        try await backend.store(CacheEntry(data: Data(repeating: 7, count: 4_096)), forKey: "keep")
        try await backend.store(CacheEntry(data: Data(repeating: 8, count: 4_096)), forKey: "keepers@1")

        // When unpinned entries of three times the limit go through
        for index in 0..<24 {
            try await backend.store(CacheEntry(data: Data(count: limit / 8)), forKey: CacheKey("filler-\(index)"))
        }

        // Then the sweeps evicted only unpinned entries, and the limit held
        let statistics = await backend.statistics()
        #expect(statistics.evictions >= 10 && statistics.bytes <= limit, "\(statistics)")
        #expect(try await backend.entry(forKey: "keep")?.data == Data(repeating: 7, count: 4_096))
        #expect(try await backend.entry(forKey: "keepers@1")?.data == Data(repeating: 8, count: 4_096))
        #expect(statistics.pinnedCount == 2 && statistics.pinnedBytes <= limit / 4, "\(statistics)")
        #expect(try await backend.entry(forKey: "filler-23") != nil, "the newest entry stays")
    }
}
