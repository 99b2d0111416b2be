import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

/// The shared conformance suite, unchanged, over a SQLite file in the fixture's temporary directory.
@Suite("SQLiteBackend conformance")
struct SQLiteConformanceTests {
    static let fixture = BackendFixture(
        "sqlite",
        make: { directory in try SQLiteBackend(path: directory.appending("cache.sqlite"), sizeLimit: 64 << 20) },
        limited: { directory, limit in try SQLiteBackend(path: directory.appending("cache.sqlite"), sizeLimit: limit) },
        failNextStore: { backend, _ in await (try #require(backend as? SQLiteBackend))._failNextWrite() },
        pinned: { directory, limit, quota in
            try SQLiteBackend(
                configuration: .init(
                    path: directory.appending("cache.sqlite"), sizeLimit: limit ?? 64 << 20, pinnedQuota: quota))
        }
    )

    @Test(arguments: fixture.conformanceCases())
    func conformance(fixture: BackendFixture, check: BackendConformance) async throws {
        try await check.run(on: fixture)
    }

    @Test func registersAsAUserWouldWriteIt() async throws {
        // Given a manager and a SQLite backend registered for a custom storage type and for .disk
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager(configuration: .init(disk: nil))
        manager.register(try SQLiteBackend(path: directory.appending("cache.sqlite")), for: .custom("sqlite"))
        manager.register(try SQLiteBackend(path: directory.appending("disk.sqlite")), for: .disk)

        // When data goes through the manager
        try await manager.writeData(Data("through the manager".utf8), forKey: "k", storageType: .custom("sqlite"))
        try await manager.writeData(Data("in place of disk".utf8), forKey: "k", storageType: .disk)

        // Then each storage type reads back from its own file
        let custom = try await manager.readData(forKey: "k", storageType: .custom("sqlite"))
        let disk = try await manager.readData(forKey: "k", storageType: .disk)
        #expect(custom == Data("through the manager".utf8))
        #expect(disk == Data("in place of disk".utf8))
    }
}
