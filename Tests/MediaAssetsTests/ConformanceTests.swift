import Foundation
import TestSupport
import Testing

@testable import MediaAssets

/// The shared conformance suite over every backend the core ships, plus one written as an app would.
@Suite("Backend conformance")
struct ConformanceTests {
    /// Makes the next store of `key` into `disk` fail after it began: a directory blocks its temporary file.
    @Sendable static func blockNextStore(_ disk: DiskCache, _ key: CacheKey) throws {
        let blocker = disk.directory.appendingPathComponent(DiskCache.fileName(for: key) + DiskCache.temporarySuffix)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
    }

    static let fixtures: [BackendFixture] = [
        BackendFixture(
            "memory",
            make: { _ in MemoryCache(limits: .init(costLimit: 64 << 20)) },
            limited: { _, limit in MemoryCache(limits: .init(costLimit: limit)) },
            pinned: { _, limit, quota in MemoryCache(limits: .init(costLimit: limit ?? 64 << 20, pinnedQuota: quota)) }
        ),
        BackendFixture(
            "disk",
            make: { directory in try DiskCache(directory: directory.appending("disk"), sizeLimit: 64 << 20) },
            limited: { directory, limit in try DiskCache(directory: directory.appending("disk"), sizeLimit: limit) },
            failNextStore: { backend, key in try blockNextStore(try #require(backend as? DiskCache), key) },
            pinned: { directory, limit, quota in
                try DiskCache(
                    configuration: .init(
                        directory: directory.appending("disk"), sizeLimit: limit ?? 64 << 20, pinnedQuota: quota))
            }
        ),
        BackendFixture(
            "hybrid",
            make: { directory in
                TieredBackend(
                    memory: MemoryCache(limits: .init(costLimit: 64 << 20)),
                    storage: try DiskCache(directory: directory.appending("disk"), sizeLimit: 64 << 20)
                )
            },
            failNextStore: { backend, key in
                let hybrid = try #require(backend as? TieredBackend)
                try blockNextStore(try #require(hybrid.tiers[1].backend as? DiskCache), key)
            },
            pinned: { directory, limit, quota in
                TieredBackend(
                    memory: MemoryCache(limits: .init(costLimit: 64 << 20, pinnedQuota: quota)),
                    storage: try DiskCache(
                        configuration: .init(
                            directory: directory.appending("disk"), sizeLimit: limit ?? 64 << 20, pinnedQuota: quota))
                )
            }
        ),
        BackendFixture(
            "custom (RecordingBackend)", make: { _ in RecordingBackend() },
            pinned: { _, _, quota in RecordingBackend(pinnedQuota: quota) }
        ),
    ]

    @Test(arguments: fixtures.flatMap { $0.conformanceCases() })
    func conformance(fixture: BackendFixture, check: BackendConformance) async throws {
        try await check.run(on: fixture)
    }
}
