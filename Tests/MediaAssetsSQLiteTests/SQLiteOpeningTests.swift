import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

@testable import MediaAssetsSQLite

/// Opening a file that is not ours throws a typed error and leaves the file byte for byte as it was.
@Suite("SQLiteBackend opening foreign and damaged files")
struct SQLiteOpeningTests {
    /// Opens `file`, expecting an error that `matches`, and checks the file did not change.
    private func expectRejected(
        _ file: SQLiteTestFile, sourceLocation: SourceLocation = #_sourceLocation,
        matches: (SQLiteError) -> Bool
    ) throws {
        let before = try file.bytes()
        let error = #expect(throws: SQLiteError.self, sourceLocation: sourceLocation) { try file.open() }
        if let error { #expect(matches(error), "unexpected \(error)", sourceLocation: sourceLocation) }
        #expect(try file.bytes() == before, "the file changed", sourceLocation: sourceLocation)
    }

    private func isNotADatabase(_ error: SQLiteError) -> Bool {
        if case .notADatabase = error { return true }
        return false
    }

    private func isForeign(_ error: SQLiteError) -> Bool {
        if case .foreignDatabase = error { return true }
        return false
    }

    /// Writes a real cache of a few entries to `file` and closes it.
    private func writeRealCache(_ file: SQLiteTestFile) async throws {
        let backend = try file.open()
        for index in 0..<40 {
            try await backend.store(CacheEntry(data: payload(index, count: 6_000)), forKey: CacheKey("k\(index)"))
        }
        await backend.close()
    }

    @Test func randomBytesAreNotADatabase() throws {
        // Given a file of 8 KiB of random bytes
        let file = try SQLiteTestFile()
        defer { file.remove() }
        var generator = SeededGenerator(seed: 3)
        try Data((0..<8_192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: file.url)

        // When it is opened, then it is rejected and untouched
        try expectRejected(file, matches: isNotADatabase)
    }

    @Test func textFileIsNotADatabase() throws {
        // Given someone's notes at the path
        let file = try SQLiteTestFile("notes.txt")
        defer { file.remove() }
        try Data(String(repeating: "Remember to buy milk.\n", count: 300).utf8).write(to: file.url)

        // When it is opened, then it is rejected and untouched
        try expectRejected(file, matches: isNotADatabase)
    }

    @Test(arguments: [0.5, 0.1])
    func truncatedDatabaseIsRejected(keptFraction: Double) async throws {
        // Given a real cache file cut short
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try await writeRealCache(file)
        let full = try file.bytes()
        try full.prefix(Int(Double(full.count) * keptFraction)).write(to: file.url)

        // When it is opened, then it is rejected as damaged and untouched
        try expectRejected(file, matches: isNotADatabase)
    }

    @Test func emptyFileBecomesANewCache() async throws {
        // Given an empty file at the path
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try Data().write(to: file.url)

        // When it is opened, then it gets the schema and works
        let backend = try file.open()
        try await backend.store(CacheEntry(data: Data("new".utf8)), forKey: "k")
        #expect(try await backend.entry(forKey: "k")?.data == Data("new".utf8))
        await backend.checkInvariants()
    }

    @Test(arguments: [
        "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('cat.jpg');",
        "CREATE TABLE entries (key TEXT PRIMARY KEY, value BLOB); INSERT INTO entries VALUES ('a', x'00');",
        "PRAGMA user_version = 1; CREATE TABLE notes (body TEXT);",
        "PRAGMA application_id = 1296126801; PRAGMA user_version = 1; CREATE TABLE entries (key TEXT, value BLOB);",
        "PRAGMA application_id = 42;",
    ])
    func foreignDatabaseIsRejected(schema: String) throws {
        // Given a SQLite database another program (or a look-alike) made
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try file.execute(schema)

        // When it is opened, then it is rejected as foreign and untouched
        try expectRejected(file, matches: isForeign)
    }

    @Test func newerSchemaVersionIsRejected() async throws {
        // Given a cache file whose schema version a newer release raised
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try await writeRealCache(file)
        let newer = Int32(SQLiteSchema.version + 1)
        try file.execute("PRAGMA user_version = \(newer)")

        // When it is opened, then the error names both versions and the file is untouched
        try expectRejected(file) { error in
            let supported = Int32(SQLiteSchema.version)
            return error == .newerSchemaVersion(path: file.url.path, version: newer, supportedVersion: supported)
        }
    }

    @Test func twoBackendsShareOneFile() async throws {
        // Given two backends open on one file at once, as two processes would have them
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let first = try file.open(sizeLimit: 10_000)
        let second = try file.open(sizeLimit: 10_000)

        // When each stores entries
        try await first.store(CacheEntry(data: payload(1, count: 4_000)), forKey: "from-first")
        try await second.store(CacheEntry(data: payload(2, count: 4_000)), forKey: "from-second")

        // Then each reads the other's, and counts both
        #expect(try await first.entry(forKey: "from-second")?.data == payload(2, count: 4_000))
        #expect(try await second.entry(forKey: "from-first")?.data == payload(1, count: 4_000))
        #expect(await first.statistics().count == 2)

        // And a write that passes the limit in one backend evicts the other's older entry
        file.clock.advance(by: 1)
        try await first.store(CacheEntry(data: payload(3, count: 4_000)), forKey: "third")
        let statistics = await second.statistics()
        #expect(statistics.count == 2 && statistics.bytes == 8_000, "\(statistics)")
        #expect(try await second.entry(forKey: "from-first") == nil)
        await first.checkInvariants()
        await second.checkInvariants()
    }

    @Test func backendsOpeningANewFileAtTheSameMomentAllOpen() async throws {
        // Given fresh files, each opened by four backends at the same moment, as four processes
        // starting together would (switching a new file to WAL is where they used to collide)
        let opener = 4
        for round in 0..<30 {
            let file = try SQLiteTestFile()
            defer { file.remove() }
            let failures = Mutex<[String]>([])
            let backends = Mutex<[SQLiteBackend]>([])
            DispatchQueue.concurrentPerform(iterations: opener) { _ in
                do {
                    // A long timeout: the one that creates the schema syncs the file while the others wait.
                    let backend = try file.open(busyTimeout: .seconds(30))
                    backends.withLock { $0.append(backend) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }

            // Then every one opens, and they share one cache
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
            let opened = backends.withLock { $0 }
            guard let first = opened.first else { continue }
            try await first.store(CacheEntry(data: payload(round, count: 100)), forKey: "shared")
            for backend in opened {
                #expect(try await backend.entry(forKey: "shared")?.data == payload(round, count: 100))
                await backend.checkInvariants()
                await backend.close()
            }
        }
    }

    @Test func directoryAtThePathCannotBeOpened() throws {
        // Given a directory where the file should be
        let file = try SQLiteTestFile()
        defer { file.remove() }
        try FileManager.default.createDirectory(at: file.url, withIntermediateDirectories: true)

        // When it is opened, then SQLite's failure is reported with the path
        let error = #expect(throws: SQLiteError.self) { try file.open() }
        if case .cannotOpen(let path, _, _) = error {
            #expect(path == file.url.path)
        } else {
            Issue.record("expected .cannotOpen, got \(String(describing: error))")
        }
    }
}
