import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite("HTTP validation")
struct ValidationTests {
    @Test func expiredEntryRevalidatesWith304AndKeepsItsBytes() async throws {
        // Given a resource fresh for 60 s, fetched once
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        let bytes = testBytes(count: 30_000)
        origin.register("/avatar.jpg", data: bytes, contentType: "image/jpeg", cacheControl: "max-age=60")
        let request = AssetRequest(url: origin.url(for: "/avatar.jpg"))
        let first = try await manager.entry(for: request)
        #expect(first.metadata.freshUntil == clock.date + 60)
        #expect(first.metadata.contentType == "image/jpeg")

        // While fresh, no request is made
        _ = try await manager.data(for: request)
        #expect(origin.requestCount(for: "/avatar.jpg") == 1)

        // When it goes stale and is asked for again
        clock.advance(by: 120)
        let second = try await manager.entry(for: request)

        // Then a conditional GET got a 304, the bytes are kept and freshness renewed
        let log = origin.requests(for: "/avatar.jpg")
        #expect(log.map(\.status) == [200, 304])
        #expect(log.last?.headers["if-none-match"] == origin.etag(for: "/avatar.jpg"))
        #expect(second.data == bytes)
        #expect(second.metadata.freshUntil == clock.date + 60)
        #expect(manager.fetchStatistics.revalidations == 1)
        #expect(
            try await manager.cachedEntry(forKey: manager.cacheKey(for: request), storageType: .disk)?.metadata
                .freshUntil == clock.date + 60)
    }

    @Test func aRevalidationUpdatesTheMetadataAndWritesNoBytes() async throws {
        // Given a resource stored through a backend that counts what it is asked, over a disk cache
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        let disk = try DiskCache(directory: environment.directory.appending("counted"))
        let counted = CountingBackend(disk)
        manager.register(counted, for: .custom("counted"))
        origin.register(
            "/photo.jpg", data: testBytes(count: 40_000), contentType: "image/jpeg", cacheControl: "max-age=60")
        let request = AssetRequest(url: origin.url(for: "/photo.jpg"))
        _ = try await manager.entry(for: request, storageType: .custom("counted"))
        await manager.waitForPendingWrites()
        let key = manager.cacheKey(for: request)
        let names = try FileManager.default.contentsOfDirectory(atPath: disk.directory.path).filter { $0.count == 32 }
        let file = disk.directory.appendingPathComponent(try #require(names.first, "the entry's file")).path
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int)

        // When it goes stale and the origin answers the conditional GET with a 304
        clock.advance(by: 120)
        _ = try await manager.entry(for: request, storageType: .custom("counted"))
        await manager.waitForPendingWrites()

        // Then the backend got one metadata update and no second store, and the file changed in place
        #expect(origin.requests(for: "/photo.jpg").map(\.status) == [200, 304])
        #expect(counted.counts == CountingBackend.Counts(stores: 1, metadataUpdates: 1))
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int == inode)
        #expect(try await disk.entry(forKey: key)?.metadata.freshUntil == clock.date + 60)
    }

    @Test func changedResourceIsFetchedAnew() async throws {
        let clock = TestClock()
        let environment = try OriginEnvironment(clock: clock)
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register(
            "/avatar.jpg", data: Data("old face".utf8), contentType: "image/jpeg", cacheControl: "max-age=60")
        let request = AssetRequest(url: origin.url(for: "/avatar.jpg"))
        _ = try await manager.data(for: request)

        origin.replace("/avatar.jpg", data: Data("new face".utf8))
        clock.advance(by: 120)

        #expect(try await manager.data(for: request) == Data("new face".utf8))
        #expect(origin.requests(for: "/avatar.jpg").map(\.status) == [200, 200])
        #expect(
            try await manager.readData(forKey: manager.cacheKey(for: request), storageType: .disk)
                == Data("new face".utf8))
    }

    @Test func newVersionInTheRequestIsANewFetch() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/u/42.png", data: Data("v1".utf8), contentType: "image/png")
        let url = origin.url(for: "/u/42.png")
        _ = try await manager.data(for: AssetRequest(url: url, version: "hash-1"))
        _ = try await manager.data(for: AssetRequest(url: url, version: "hash-1"))
        #expect(origin.requestCount(for: "/u/42.png") == 1)

        origin.replace("/u/42.png", data: Data("v2".utf8))
        #expect(try await manager.data(for: AssetRequest(url: url, version: "hash-2")) == Data("v2".utf8))
        #expect(origin.requestCount(for: "/u/42.png") == 2)
    }

    @Test func noStoreIsNotPersistedAndPoliciesBehave() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/private", data: Data("secret".utf8), contentType: "text/plain", cacheControl: "no-store")
        origin.register("/public", data: Data("hello".utf8), contentType: "text/plain")

        #expect(try await manager.data(for: AssetRequest(url: origin.url(for: "/private"))) == Data("secret".utf8))
        let privateKey = manager.cacheKey(for: AssetRequest(url: origin.url(for: "/private")))
        #expect(try await manager.readData(forKey: privateKey, storageType: .disk) == nil)

        let publicURL = origin.url(for: "/public")
        _ = try await manager.data(for: AssetRequest(url: publicURL))
        _ = try await manager.data(for: AssetRequest(url: publicURL, cachePolicy: .reload))
        _ = try await manager.data(for: AssetRequest(url: publicURL, cachePolicy: .revalidate))
        _ = try await manager.data(for: AssetRequest(url: publicURL, cachePolicy: .cacheOnly))
        #expect(origin.requests(for: "/public").map(\.status) == [200, 200, 304])
    }

    @Test func progressIsReported() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let (origin, manager) = (environment.origin, environment.manager)
        origin.register("/big", data: testBytes(count: 1 << 20), contentType: "application/octet-stream")
        let reports = ProgressRecorder()

        _ = try await manager.data(for: AssetRequest(url: origin.url(for: "/big"))) { reports.record($0) }

        let last = try #require(reports.values.last)
        #expect(last.receivedBytes == 1 << 20 && last.expectedBytes == 1 << 20)
        #expect(reports.values.map(\.receivedBytes) == reports.values.map(\.receivedBytes).sorted())
        // Sampled, not one per 16 KiB chunk: at least 64 KiB apart, and the end once
        let steps = zip(reports.values.dropFirst(), reports.values).map { $0.receivedBytes - $1.receivedBytes }
        #expect(reports.values.count >= 2 && reports.values.count <= 17, "\(reports.values.count) reports")
        #expect(steps.dropLast().allSatisfy { $0 >= 64 << 10 })
        #expect(reports.values.first.map { $0.receivedBytes >= 64 << 10 } == true)
    }
}

/// Collects progress reports from any thread.
final class ProgressRecorder: Sendable {
    private let storage = Mutex<[FetchProgress]>([])
    func record(_ progress: FetchProgress) { storage.withLock { $0.append(progress) } }
    var values: [FetchProgress] { storage.withLock { $0 } }
}

/// Forwards to a backend and counts its stores and metadata updates.
final class CountingBackend: CacheBackend {
    struct Counts: Equatable {
        var stores = 0
        var metadataUpdates = 0
    }

    private let backend: any CacheBackend
    private let state = Mutex(Counts())

    init(_ backend: any CacheBackend) { self.backend = backend }

    var counts: Counts { state.withLock { $0 } }

    func entry(forKey key: CacheKey) async throws -> CacheEntry? { try await backend.entry(forKey: key) }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        state.withLock { $0.stores += 1 }
        try await backend.store(entry, forKey: key)
    }

    func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        state.withLock { $0.metadataUpdates += 1 }
        return try await backend.updateMetadata(metadata, forKey: key)
    }

    func removeEntry(forKey key: CacheKey) async throws { try await backend.removeEntry(forKey: key) }
    func removeAll() async throws { try await backend.removeAll() }
    func statistics() async -> CacheStatistics { await backend.statistics() }
}
