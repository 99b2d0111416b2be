import Foundation
import MediaAssets
import Testing

/// A way to make a backend for the conformance suite, with a name for test output.
public struct BackendFixture: Sendable, CustomStringConvertible {
    /// The name shown in test results.
    public let name: String
    /// Makes a fresh, empty backend whose files (if any) live in the given directory.
    public let make: @Sendable (TemporaryDirectory) throws -> any CacheBackend
    /// Makes a fresh backend limited to the given bytes (as `byteLimit` reports them), for the
    /// limit checks; nil for a backend without a limit.
    public let makeLimited: (@Sendable (TemporaryDirectory, Int) throws -> any CacheBackend)?
    /// Arranges for the next store of the key into the backend to fail inside the backend (after
    /// it began), for the failure check; nil for a backend whose stores cannot be made to fail.
    public let failNextStore: (@Sendable (any CacheBackend, CacheKey) async throws -> Void)?
    /// Makes a fresh backend with the given pinned quota and, when not nil, size limit, for the pin
    /// checks; nil for a backend without pins.
    public let makePinned:
        (@Sendable (TemporaryDirectory, _ sizeLimit: Int?, _ pinnedQuota: Int) throws -> any CacheBackend)?

    /// Creates a fixture.
    public init(
        _ name: String,
        make: @escaping @Sendable (TemporaryDirectory) throws -> any CacheBackend,
        limited makeLimited: (@Sendable (TemporaryDirectory, Int) throws -> any CacheBackend)? = nil,
        failNextStore: (@Sendable (any CacheBackend, CacheKey) async throws -> Void)? = nil,
        pinned makePinned: (@Sendable (TemporaryDirectory, Int?, Int) throws -> any CacheBackend)? = nil
    ) {
        self.name = name
        self.make = make
        self.makeLimited = makeLimited
        self.failNextStore = failNextStore
        self.makePinned = makePinned
    }

    public var description: String { name }

    /// Runs `body` with a fresh backend in a fresh temporary directory, removed afterwards.
    public func withBackend(_ body: (any CacheBackend) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("conformance-\(name)")
        defer { directory.remove() }
        try await body(try make(directory))
    }

    /// The checks that apply to this fixture, paired with it, as a test's arguments: the limit
    /// checks need `makeLimited`, the failure check `failNextStore`, the pin checks `makePinned`
    /// (and eviction of a pinned backend both).
    public func conformanceCases() -> [(BackendFixture, BackendConformance)] {
        BackendConformance.allCases.filter { check in
            switch check {
            case .limits: return makeLimited != nil
            case .failedStoreKeepsWhatWasCached: return failNextStore != nil
            case .pins, .pinnedQuota: return makePinned != nil
            case .pinsSurviveEviction: return makePinned != nil && makeLimited != nil
            default: return true
            }
        }.map { (self, $0) }
    }

    /// Runs `body` with a fresh backend of `pinnedQuota` (and `sizeLimit`), removed afterwards.
    func withPinnedBackend(
        sizeLimit: Int?, pinnedQuota: Int, _ body: (any CacheBackend) async throws -> Void
    ) async throws {
        let makePinned = try #require(makePinned)
        let directory = try TemporaryDirectory("conformance-\(name)")
        defer { directory.remove() }
        try await body(try makePinned(directory, sizeLimit, pinnedQuota))
    }
}

/// The checks every `CacheBackend` passes: the protocol's implementation requirements as tests.
///
/// A test target runs them as `@Test(arguments: fixtures.flatMap { $0.conformanceCases() })`
/// with `check.run(on: fixture)`.
public enum BackendConformance: String, CaseIterable, Sendable, CustomStringConvertible {
    case missForUnknownKey, roundTrip, metadataRoundTrip, overwrite, remove, removeAll
    case emptyData, largeData, expiry, hostileKeys, concurrency
    case removeByKeyPrefix, removeByPartition, statistics, limits, failedStoreKeepsWhatWasCached
    case removeAsset, storedKeys, pins, pinnedQuota, pinsSurviveEviction
    case updateMetadata, metadataUpdatesAreWhole

    public var description: String { rawValue }

    /// The most bytes a fixture must accept in one entry (large-data check).
    public static let largeEntrySize = 6 << 20

    /// The byte limit the limit checks give a limited fixture.
    public static let smallLimit = 64 << 10

    /// Runs this check on a fresh backend of `fixture`.
    public func run(on fixture: BackendFixture) async throws {
        switch self {
        case .limits:
            let directory = try TemporaryDirectory("conformance-\(fixture.name)")
            defer { directory.remove() }
            let makeLimited = try #require(fixture.makeLimited)
            try await checkLimits(try makeLimited(directory, Self.smallLimit))
        case .failedStoreKeepsWhatWasCached:
            let failNextStore = try #require(fixture.failNextStore)
            try await fixture.withBackend { try await checkFailedStore($0, failNextStore: failNextStore) }
        case .pins:
            try await fixture.withPinnedBackend(sizeLimit: nil, pinnedQuota: 1 << 20) { try await checkPins($0) }
        case .pinnedQuota:
            try await fixture.withPinnedBackend(sizeLimit: nil, pinnedQuota: Self.smallPinnedQuota) {
                try await checkPinnedQuota($0)
            }
        case .pinsSurviveEviction:
            try await fixture.withPinnedBackend(sizeLimit: Self.smallLimit, pinnedQuota: Self.smallLimit / 4) {
                try await checkPinsSurviveEviction($0)
            }
        default:
            try await fixture.withBackend { try await check($0) }
        }
    }

    /// Runs this check against `backend` (the checks that need no more than a backend).
    public func check(_ backend: any CacheBackend) async throws {
        switch self {
        case .missForUnknownKey:
            #expect(try await backend.entry(forKey: "never stored") == nil)
        case .roundTrip:
            let data = Data("hello, cache".utf8)
            try await backend.store(CacheEntry(data: data), forKey: "greeting")
            #expect(try await backend.entry(forKey: "greeting")?.data == data)
        case .metadataRoundTrip:
            try await checkMetadataRoundTrip(backend)
        case .overwrite:
            try await backend.store(CacheEntry(data: Data("old".utf8)), forKey: "k")
            try await backend.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
            #expect(try await backend.entry(forKey: "k")?.data == Data("new".utf8))
        case .remove:
            try await backend.store(CacheEntry(data: Data([1, 2, 3])), forKey: "gone")
            try await backend.removeEntry(forKey: "gone")
            #expect(try await backend.entry(forKey: "gone") == nil)
            try await backend.removeEntry(forKey: "was never there")
        case .removeAll:
            for index in 0..<20 {
                try await backend.store(CacheEntry(data: Data([UInt8(index)])), forKey: CacheKey("item-\(index)"))
            }
            try await backend.removeAll()
            for index in 0..<20 {
                #expect(try await backend.entry(forKey: CacheKey("item-\(index)")) == nil)
            }
            #expect(await backend.statistics().count == 0)
        case .emptyData:
            try await backend.store(CacheEntry(data: Data()), forKey: "empty")
            let entry = try await backend.entry(forKey: "empty")
            #expect(entry != nil)
            #expect(entry?.data.isEmpty == true)
        case .largeData:
            let data = testBytes(count: Self.largeEntrySize, seed: 99)
            try await backend.store(CacheEntry(data: data), forKey: "large")
            #expect(try await backend.entry(forKey: "large")?.data == data)
        case .expiry:
            let past = CacheMetadata(expires: Date(timeIntervalSinceNow: -60))
            let future = CacheMetadata(expires: Date(timeIntervalSinceNow: 3_600))
            try await backend.store(CacheEntry(data: Data("stale".utf8), metadata: past), forKey: "expired")
            try await backend.store(CacheEntry(data: Data("fresh".utf8), metadata: future), forKey: "live")
            #expect(try await backend.entry(forKey: "expired") == nil)
            #expect(try await backend.entry(forKey: "live")?.data == Data("fresh".utf8))
            try await backend.removeExpired()
            #expect(try await backend.entry(forKey: "live") != nil)
        case .hostileKeys:
            try await checkHostileKeys(backend)
        case .concurrency:
            try await checkConcurrency(backend)
        case .removeByKeyPrefix:
            try await checkRemoveByKeyPrefix(backend)
        case .removeByPartition:
            try await checkRemoveByPartition(backend)
        case .statistics:
            try await checkStatistics(backend)
        case .removeAsset:
            try await checkRemoveAsset(backend)
        case .storedKeys:
            try await checkStoredKeys(backend)
        case .updateMetadata:
            try await checkUpdateMetadata(backend)
        case .metadataUpdatesAreWhole:
            try await checkMetadataUpdatesAreWhole(backend)
        case .limits, .failedStoreKeepsWhatWasCached, .pins, .pinnedQuota, .pinsSurviveEviction:
            Issue.record("\(self) needs its fixture: call run(on:)")
        }
    }

    /// Keys that must stay opaque: path traversal, separators, NUL, emoji, very long.
    public static let hostileKeySamples: [CacheKey] = [
        "../../etc/passwd", "/absolute/path", "a/b/c", "..", ".", "", "with\0nul", "new\nline",
        "emoji 🧑‍🚀🎞️", "back\\slash", "spaces and ?query=1&x=#frag",
        CacheKey(String(repeating: "k", count: 10_000)),
        CacheKey(String(repeating: "🧑‍🚀", count: 2_000)),
    ]

    private func checkMetadataRoundTrip(_ backend: any CacheBackend) async throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        let metadata = CacheMetadata(
            created: created,
            expires: Date(timeIntervalSinceNow: 86_400).rounded,
            freshUntil: Date(timeIntervalSinceNow: 60).rounded,
            etag: "\"abc123\"",
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
            contentType: "image/png",
            staleWhileRevalidateUntil: Date(timeIntervalSinceNow: 600).rounded,
            staleIfErrorUntil: Date(timeIntervalSinceNow: 3_600).rounded,
            partition: .lottie
        )
        try await backend.store(CacheEntry(data: Data([9, 8, 7]), metadata: metadata), forKey: "meta")
        let read = try #require(try await backend.entry(forKey: "meta")).metadata
        #expect(read.created == metadata.created)
        #expect(read.expires == metadata.expires)
        #expect(read.freshUntil == metadata.freshUntil)
        #expect(read.etag == metadata.etag)
        #expect(read.lastModified == metadata.lastModified)
        #expect(read.contentType == metadata.contentType)
        #expect(read.partition == metadata.partition)
        #expect(read.staleWhileRevalidateUntil == metadata.staleWhileRevalidateUntil)
        #expect(read.staleIfErrorUntil == metadata.staleIfErrorUntil)
    }

    private func checkRemoveByKeyPrefix(_ backend: any CacheBackend) async throws {
        // Given a resource's chunks and record beside keys that share all but the separator
        let selected: [CacheKey] = ["video-1#0", "video-1#1", "video-1#meta", "video-1#\0nul", "video-1#🎞️"]
        let kept: [CacheKey] = ["video-1", "video-10#0", "video-1@circle", "other#0", "Video-1#0", "video-1\u{FF}"]
        for key in selected + kept { try await backend.store(CacheEntry(data: Data(key.rawValue.utf8)), forKey: key) }

        // When the resource's prefix is removed
        try await backend.removeEntries(.keyPrefix("video-1#"))

        // Then exactly the keys with that prefix are gone
        for key in selected { #expect(try await backend.entry(forKey: key) == nil, "\(key) removed") }
        for key in kept {
            #expect(try await backend.entry(forKey: key)?.data == Data(key.rawValue.utf8), "\(key) kept")
        }
        #expect(await backend.statistics().count == kept.count)
    }

    private func checkHostileKeys(_ backend: any CacheBackend) async throws {
        for (index, key) in Self.hostileKeySamples.enumerated() {
            try await backend.store(CacheEntry(data: Data("value \(index)".utf8)), forKey: key)
        }
        for (index, key) in Self.hostileKeySamples.enumerated() {
            #expect(try await backend.entry(forKey: key)?.data == Data("value \(index)".utf8), "key #\(index)")
        }
    }

    private func checkConcurrency(_ backend: any CacheBackend) async throws {
        // Writers overwrite shared keys with self-describing values while readers read them: a
        // read returns nothing or one complete value, never a mix.
        let keyCount = 16
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<25 {
                        let key = CacheKey("shared-\((writer + round) % keyCount)")
                        try await backend.store(
                            CacheEntry(data: Self.payload(writer: writer, round: round)), forKey: key)
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for round in 0..<50 {
                        if let data = try await backend.entry(forKey: CacheKey("shared-\(round % keyCount)"))?.data {
                            #expect(Self.isPayload(data))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<keyCount {
            let data = try await backend.entry(forKey: CacheKey("shared-\(index)"))?.data
            #expect(data.map(Self.isPayload) ?? false, "shared-\(index) holds a complete value")
        }
    }

    private static func payload(writer: Int, round: Int) -> Data {
        let seed = UInt8(truncatingIfNeeded: writer * 31 + round)
        return Data([seed] + [UInt8](repeating: seed, count: 4_095))
    }

    private static func isPayload(_ data: Data) -> Bool {
        data.count == 4_096 && data.allSatisfy { $0 == data.first }
    }
}

extension Date {
    /// This date rounded to whole milliseconds (what a byte backend is expected to keep exactly).
    public var rounded: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1_000).rounded() / 1_000)
    }
}
