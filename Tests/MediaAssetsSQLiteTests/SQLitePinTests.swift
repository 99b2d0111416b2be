import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

@Suite("SQLiteBackend pins")
struct SQLitePinTests {
    @Test func pinsLiveInTheFileForEveryBackendUsingIt() async throws {
        // Given two backends on one file (two processes), the first pinning an asset
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let first = try file.open(sizeLimit: 1 << 20)
        let second = try file.open(sizeLimit: 1 << 20)
        try await first.pin(.asset("avatar"))

        // When the second stores the asset's entries and then fills the file past its limit
        try await second.store(CacheEntry(data: payload(1, count: 40 << 10)), forKey: "avatar")
        try await second.store(CacheEntry(data: payload(2, count: 40 << 10)), forKey: "avatar@circle")
        for index in 0..<60 {
            try await second.store(CacheEntry(data: payload(index, count: 40 << 10)), forKey: CacheKey("f\(index)"))
        }

        // Then its sweeps skipped the pinned rows, and both backends count them
        #expect(try await second.entry(forKey: "avatar")?.data == payload(1, count: 40 << 10))
        #expect(try await first.entry(forKey: "avatar@circle")?.data == payload(2, count: 40 << 10))
        let statistics = await first.statistics()
        #expect(statistics.pinnedCount == 2 && statistics.evictions == 0 && statistics.pinnedBytes == 80 << 10)
        #expect(await second.statistics().evictions > 20)
        await second.checkInvariants()

        // And the pin survives a reopen, as does its protection from the sweep at open
        await first.close()
        await second.close()
        let reopened = try file.open(sizeLimit: 200 << 10)
        #expect(try await reopened.pins() == [.asset("avatar")])
        #expect(try await reopened.entry(forKey: "avatar") != nil)
        #expect(try await reopened.entry(forKey: "avatar@circle") != nil)
        #expect(await reopened.statistics().pinnedCount == 2)
        await reopened.checkInvariants()
    }

    @Test func aStorePastTheQuotaRollsBackAndKeepsTheOldRow() async throws {
        // Given a pinned key holding 10 KiB under a 16 KiB quota
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var configuration = SQLiteBackend.Configuration(path: file.url, sizeLimit: 1 << 20, pinnedQuota: 16 << 10)
        configuration.now = file.clock.now
        let backend = try SQLiteBackend(configuration: configuration)
        try await backend.pin(.key("k"))
        try await backend.store(CacheEntry(data: payload(1, count: 10 << 10)), forKey: "k")

        // When a 20 KiB replacement is stored, it throws the typed error
        await #expect(
            throws: AssetsError.pinnedQuotaExceeded(key: "k", bytes: 20 << 10, pinnedBytes: 0, quota: 16 << 10)
        ) {
            try await backend.store(CacheEntry(data: payload(2, count: 20 << 10)), forKey: "k")
        }

        // Then the transaction rolled back: the old row and its pin are intact
        #expect(try await backend.entry(forKey: "k")?.data == payload(1, count: 10 << 10))
        let statistics = await backend.statistics()
        #expect(statistics.pinnedCount == 1 && statistics.pinnedBytes == 10 << 10, "\(statistics)")
        await backend.checkInvariants()
    }
}
