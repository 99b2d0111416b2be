import Foundation
import MediaAssets
import MediaAssetsSQLite
import TestSupport
import Testing

@Suite("SQLiteBackend under concurrency")
struct SQLiteConcurrencyTests {
    /// A value that names its writer and round in every byte, so a torn or mixed read shows.
    private static func value(writer: Int, round: Int) -> Data {
        let tag = UInt8(truncatingIfNeeded: writer &* 53 &+ round)
        return Data(repeating: tag, count: 512 + (writer * 97 + round * 31) % 3_000)
    }

    private static func isComplete(_ data: Data) -> Bool {
        guard let first = data.first else { return false }
        return data.allSatisfy { $0 == first }
    }

    @Test func manyReadersWritersAndRemoversKeepTheCacheConsistent() async throws {
        // Given a 64 KiB cache small enough that writers keep evicting, and a small access batch
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open(sizeLimit: 64 << 10, accessTimeBatchSize: 16)
        let writers = 8, writesEach = 40, readers = 8, readsEach = 80, keyCount = 48

        // When writers, readers, a remover and a flusher run at once
        let badReads = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for round in 0..<writesEach {
                        let key = CacheKey("k\((writer * 7 + round) % keyCount)")
                        try await backend.store(CacheEntry(data: Self.value(writer: writer, round: round)), forKey: key)
                    }
                    return 0
                }
            }
            for reader in 0..<readers {
                group.addTask {
                    var bad = 0
                    for round in 0..<readsEach {
                        let key = CacheKey("k\((reader + round) % keyCount)")
                        if let data = try await backend.entry(forKey: key)?.data, !Self.isComplete(data) {
                            bad += 1
                        }
                    }
                    return bad
                }
            }
            group.addTask {
                for round in 0..<20 { try await backend.removeEntry(forKey: CacheKey("k\(round * 3 % keyCount)")) }
                return 0
            }
            group.addTask {
                for _ in 0..<10 { await backend.flushAccessTimes() }
                return 0
            }
            return try await group.reduce(0, +)
        }

        // Then no read saw a partial value, the counters add up, and the file agrees with memory
        #expect(badReads == 0)
        let statistics = await backend.statistics()
        #expect(statistics.writes == writers * writesEach)
        #expect(statistics.hits + statistics.misses == readers * readsEach)
        #expect(statistics.rejectedTooLarge == 0)
        #expect(statistics.bytes <= 64 << 10 && statistics.count <= keyCount)
        #expect(statistics.evictions > 0)
        await backend.checkInvariants()
        for index in 0..<keyCount {
            if let data = try await backend.entry(forKey: CacheKey("k\(index)"))?.data {
                #expect(Self.isComplete(data))
            }
        }
    }
}
