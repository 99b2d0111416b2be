import Foundation
import TestSupport
import Testing

@testable import MediaAssets

@Suite("DiskCache")
struct DiskCacheTests {
    private func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func entryFiles(in directory: URL) throws -> [String] {
        try files(in: directory).filter { $0 != ".lock" }
    }

    private func onDiskBytes(_ directory: URL) throws -> Int {
        try entryFiles(in: directory).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
    }

    @Test func persistsAcrossReopen() async throws {
        // Given entries written by one instance that is then closed
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let metadata = CacheMetadata(etag: "\"v1\"", contentType: "image/jpeg")
        let first = try DiskCache(directory: directory.url)
        for index in 0..<50 {
            try await first.store(
                CacheEntry(data: Data("entry \(index)".utf8), metadata: metadata), forKey: CacheKey("k\(index)"))
        }
        await first.close()

        // When a new instance opens the directory
        let second = try DiskCache(directory: directory.url)

        // Then its index is rebuilt and every entry reads back with its metadata
        let statistics = await second.statistics()
        #expect(statistics.count == 50)
        #expect(statistics.bytes == (try onDiskBytes(directory.url)))
        for index in 0..<50 {
            let entry = try #require(try await second.entry(forKey: CacheKey("k\(index)")))
            #expect(entry.data == Data("entry \(index)".utf8))
            #expect(entry.metadata.etag == "\"v1\"" && entry.metadata.contentType == "image/jpeg")
        }
        await second.checkInvariants()
    }

    @Test func closedCacheThrowsAndFreesTheDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        await cache.close()
        await #expect(throws: AssetsError.self) { try await cache.store(CacheEntry(data: Data()), forKey: "k") }
        _ = try DiskCache(directory: directory.url)
    }

    @Test(arguments: [
        "flip a body byte", "flip a header byte", "truncate", "wrong magic", "empty file", "swap in another key's file",
    ])
    func corruptFileIsAMissAndIsRemoved(damage: String) async throws {
        // Given two stored entries
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data(repeating: 7, count: 4_096)), forKey: "victim")
        try await cache.store(CacheEntry(data: Data(repeating: 8, count: 4_096)), forKey: "other")
        let victim = directory.appending(DiskCache.fileName(for: "victim"))
        let other = directory.appending(DiskCache.fileName(for: "other"))
        var bytes = try Data(contentsOf: victim)

        // When the victim's file is damaged on disk
        switch damage {
        case "flip a body byte": bytes[bytes.count - 100] ^= 0xFF
        case "flip a header byte": bytes[80] ^= 0x01
        case "truncate": bytes = bytes.prefix(bytes.count / 2)
        case "wrong magic": bytes[0] = UInt8(ascii: "X")
        case "empty file": bytes = Data()
        default: bytes = try Data(contentsOf: other)
        }
        try bytes.write(to: victim)

        // Then reading it is a miss, the file is removed, and the other entry is intact
        #expect(try await cache.entry(forKey: "victim") == nil)
        _ = await cache.statistics()  // runs after the queued removal
        #expect(!FileManager.default.fileExists(atPath: victim.path))
        #expect(try await cache.entry(forKey: "other")?.data == Data(repeating: 8, count: 4_096))
        await cache.checkInvariants()
    }

    @Test func fileReplacedAfterAVerifiedReadIsVerifiedAgain() async throws {
        // Given an entry that has been read once (its checksum verified, later hits skip it)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data(repeating: 5, count: 8_192)), forKey: "hot")
        #expect(try await cache.entry(forKey: "hot")?.data == Data(repeating: 5, count: 8_192))
        #expect(try await cache.entry(forKey: "hot") != nil)

        // When another program replaces the file with a damaged copy
        let file = directory.appending(DiskCache.fileName(for: "hot"))
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: file, options: .atomic)

        // Then the next read verifies the new file, finds the damage, and misses
        #expect(try await cache.entry(forKey: "hot") == nil)
        _ = await cache.statistics()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func unknownFilesAreIgnoredAndStaleTemporaryFilesRemoved() async throws {
        // Given a directory holding a user's files and a temporary file left by a crash
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("keep me".utf8).write(to: directory.appending("notes.txt"))
        try FileManager.default.createDirectory(at: directory.appending("sub"), withIntermediateDirectories: false)
        try Data("torn".utf8).write(to: directory.appending("0123456789abcdef0123456789abcdef.tmp"))

        // When a cache opens it, stores, and removes everything
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1])), forKey: "k")
        #expect(await cache.statistics().count == 1)
        try await cache.removeAll()

        // Then the user's files are untouched and the temporary file is gone
        #expect(try files(in: directory.url) == [".lock", "notes.txt", "sub"])
    }

    @Test func hostileKeysStayInsideTheDirectory() async throws {
        // Given a cache directory inside a parent we can watch
        let parent = try TemporaryDirectory()
        defer { parent.remove() }
        let cacheURL = parent.appending("cache")
        let cache = try DiskCache(directory: cacheURL)

        // When hostile keys are stored
        for (index, key) in BackendConformance.hostileKeySamples.enumerated() {
            try await cache.store(CacheEntry(data: Data("v\(index)".utf8)), forKey: key)
        }

        // Then nothing appears outside the cache directory and each file has a hashed name
        #expect(try files(in: parent.url) == ["cache"])
        let names = try entryFiles(in: cacheURL)
        #expect(names.count == BackendConformance.hostileKeySamples.count)
        #expect(names.allSatisfy(DiskCache.isEntryFileName))
        for (index, key) in BackendConformance.hostileKeySamples.enumerated() {
            #expect(try await cache.entry(forKey: key)?.data == Data("v\(index)".utf8))
        }
    }

    @Test func sizeLimitHoldsAfterEveryWrite() async throws {
        // Given a 100 KiB cache
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limit = 100 << 10
        let cache = try DiskCache(directory: directory.url, sizeLimit: limit)
        var generator = SeededGenerator(seed: 7)

        // When 200 entries of 1–20 KiB are written
        for index in 0..<200 {
            let size = Int.random(in: 1_024...20_480, using: &generator)
            try await cache.store(CacheEntry(data: Data(count: size)), forKey: CacheKey("e\(index)"))

            // Then after every write the index and the files on disk are within the limit
            let statistics = await cache.statistics()
            #expect(statistics.bytes <= limit)
            #expect(try onDiskBytes(directory.url) == statistics.bytes)
            await cache.checkInvariants()
        }
        let statistics = await cache.statistics()
        #expect(statistics.evictions > 0)
        #expect(statistics.evictions + statistics.count == 200)
    }

    @Test func evictsLeastRecentlyUsedFirst() async throws {
        // Given a cache holding five 10 KiB entries, of which the oldest was just read
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(
            configuration: .tuned(directory: directory.url, sizeLimit: 60_000, lowWaterFraction: 0.9))
        for index in 0..<5 {
            try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: CacheKey("e\(index)"))
        }
        #expect(try await cache.entry(forKey: "e0") != nil)

        // When a sixth and seventh entry force a sweep
        try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: "e5")
        try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: "e6")

        // Then the least recently used (e1, e2) went, the freshly read e0 stayed
        #expect(try await cache.entry(forKey: "e0") != nil)
        #expect(try await cache.entry(forKey: "e1") == nil)
        #expect(try await cache.entry(forKey: "e6") != nil)
        await cache.checkInvariants()
    }

    @Test func entryLargerThanTheLimitIsRejected() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url, sizeLimit: 10_000)
        try await cache.store(CacheEntry(data: Data(count: 100)), forKey: "k")
        try await cache.store(CacheEntry(data: Data(count: 20_000)), forKey: "k")
        #expect(try await cache.entry(forKey: "k") == nil)
        #expect(await cache.statistics().rejectedTooLarge == 1)
        #expect(try entryFiles(in: directory.url).isEmpty)
    }

    @Test func secondInstanceOnTheSameDirectoryFailsClearly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try DiskCache(directory: directory.url)
        let error = #expect(throws: AssetsError.directoryLocked(path: directory.url.standardizedFileURL.path)) {
            _ = try DiskCache(directory: directory.url)
        }
        // The message says how to share a cache between processes instead
        #expect(error?.description.contains("SQLiteBackend") == true && error?.description.contains("Redis") == true)
        withExtendedLifetime(first) {}
    }

    @Test func unusableDirectoryGivesATypedError() throws {
        // A path below a regular file can never be created, even by root.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.appending("a-file")
        try Data("x".utf8).write(to: file)
        let error = #expect(throws: AssetsError.self) {
            _ = try DiskCache(directory: file.appendingPathComponent("cache"))
        }
        guard case .directoryUnavailable(let path, _) = error else {
            Issue.record("expected directoryUnavailable, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("a-file/cache"))
        #expect(error?.description.contains("\(file.path) is a file, not a directory") == true, "\(error!)")
        #expect(error?.description.contains("NSCocoaErrorDomain") == false)
    }

    @Test func createsTheDirectoryPrivate() throws {
        let parent = try TemporaryDirectory()
        defer { parent.remove() }
        let url = parent.appending("new/nested")
        let cache = try DiskCache(directory: url)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        withExtendedLifetime(cache) {}
    }

    @Test func failedWriteLeavesThePreviousEntryIntact() async throws {
        // Given a stored entry, and its temporary file path blocked by a directory
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data("old".utf8)), forKey: "k")
        let blocker = directory.appending(DiskCache.fileName(for: "k") + DiskCache.temporarySuffix)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)

        // When a new value is stored, the write fails with a typed error
        await #expect(throws: AssetsError.self) {
            try await cache.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
        }

        // Then the old value still reads back
        #expect(try await cache.entry(forKey: "k")?.data == Data("old".utf8))
    }

    @Test func expiryUsesTheEntrysDateAndRemoveExpiredReadsUnknownHeaders() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let configuration = DiskCache.Configuration.tuned(directory: directory.url, now: clock.now)
        var cache = try DiskCache(configuration: configuration)
        try await cache.store(CacheEntry(data: Data([1]), metadata: .init(expires: clock.date + 60)), forKey: "soon")
        try await cache.store(CacheEntry(data: Data([2]), metadata: .init(expires: clock.date + 600)), forKey: "later")
        try await cache.store(CacheEntry(data: Data([3])), forKey: "never")
        await cache.close()

        // Reopened, the index does not know the expiries; removeExpired reads them from headers
        cache = try DiskCache(configuration: configuration)
        clock.advance(by: 120)
        try await cache.removeExpired()
        #expect(await cache.statistics().count == 2)
        #expect(try await cache.entry(forKey: "later") != nil)
        clock.advance(by: 600)
        #expect(try await cache.entry(forKey: "later") == nil)
        #expect(try await cache.entry(forKey: "never") != nil)
    }

    @Test func lastAccessIsSavedLazilyAndSurvivesReopen() async throws {
        // Given three entries written a second apart (the order a reopened cache reads from their
        // modification times; equal times would leave it to the directory's listing order)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let configuration = DiskCache.Configuration.tuned(directory: directory.url, sizeLimit: 35_000, now: clock.now)
        var cache = try DiskCache(configuration: configuration)
        for name in ["a", "b", "c"] {
            try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: CacheKey(name))
            clock.advance(by: 1)
        }
        let fileA = directory.appending(DiskCache.fileName(for: "a")).path
        let writtenDate = try #require(FileManager.default.attributesOfItem(atPath: fileA)[.modificationDate] as? Date)

        // When "a" is read later, the file is not touched until the times are flushed
        clock.advance(by: 3_600)
        #expect(try await cache.entry(forKey: "a") != nil)
        #expect(try FileManager.default.attributesOfItem(atPath: fileA)[.modificationDate] as? Date == writtenDate)
        await cache.close()
        let savedDate = try #require(FileManager.default.attributesOfItem(atPath: fileA)[.modificationDate] as? Date)
        #expect(abs(savedDate.timeIntervalSince(clock.date)) < 0.001)

        // Then after reopening (and its pass over the directory: before it ends, files not indexed yet are not
        // candidates for eviction), "a" counts as recent: a new entry evicts "b" first
        cache = try DiskCache(configuration: configuration)
        await cache.waitUntilIndexed()
        try await cache.store(CacheEntry(data: Data(count: 10_000)), forKey: "d")
        #expect(try await cache.entry(forKey: "a") != nil)
        #expect(try await cache.entry(forKey: "b") == nil)
    }
}
