import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

/// Several processes of the `cache-writer` helper on one SQLite file at once.
@Suite(
    "SQLiteBackend shared by processes",
    .enabled(if: HelperProcess.isBuilt("cache-writer"), HelperProcess.cacheWriterRequirement)
)
struct SQLiteMultiProcessTests {
    static let writers = 4
    static let keys = 40

    private func writeConcurrently(_ file: SQLiteTestFile, sizeLimit: Int, rounds: Int) async throws {
        try await withThrowingTaskGroup(of: ChildProcess.Outcome.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    try await HelperProcess.run(
                        "cache-writer",
                        [
                            "write", "--backend", "sqlite", "--path", file.url.path, "--writer", "\(writer)",
                            "--keys", "\(Self.keys)", "--size-limit", "\(sizeLimit)", "--rounds", "\(rounds)",
                        ])
                }
            }
            for try await outcome in group { #expect(outcome.status == 0, "\(outcome.output)") }
        }
    }

    private func verify(
        _ file: SQLiteTestFile, sizeLimit: Int, requireAll: Bool
    ) async throws -> ChildProcess.Outcome {
        try await HelperProcess.run(
            "cache-writer",
            [
                "verify", "--backend", "sqlite", "--path", file.url.path, "--writers", "\(Self.writers)",
                "--keys", "\(Self.keys)", "--size-limit", "\(sizeLimit)",
            ] + (requireAll ? ["--require-all"] : []))
    }

    @Test func everyValueWrittenByFourProcessesReadsBack() async throws {
        // Given four processes writing their own keys, three rounds each, into one file at once
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let limit = 64 << 20
        try await writeConcurrently(file, sizeLimit: limit, rounds: 3)

        // Then every key holds its last version, byte for byte
        let outcome = try await verify(file, sizeLimit: limit, requireAll: true)
        #expect(outcome.status == 0, "\(outcome.output)")
        let expected = "\(Self.writers * Self.keys) present, 0 absent, 0 failures"
        #expect(outcome.output.contains(expected), "\(outcome.output)")

        // And this process sees them all, with totals that agree with the table
        let backend = try file.open(sizeLimit: limit)
        #expect(await backend.statistics().count == Self.writers * Self.keys)
        await backend.checkInvariants()
    }

    @Test func evictionAcrossProcessesKeepsTheLimitAndTheTotals() async throws {
        // Given four processes writing four times what a 1 MiB cache holds, evicting each other's entries
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let limit = 1 << 20
        try await writeConcurrently(file, sizeLimit: limit, rounds: 2)

        // Then what is left is correct, within the limit, and counted as the table says
        let outcome = try await verify(file, sizeLimit: limit, requireAll: false)
        #expect(outcome.status == 0, "\(outcome.output)")
        let backend = try file.open(sizeLimit: limit)
        let statistics = await backend.statistics()
        #expect(statistics.bytes <= limit && statistics.count < Self.writers * Self.keys, "\(statistics)")
        await backend.checkInvariants()
    }
}
