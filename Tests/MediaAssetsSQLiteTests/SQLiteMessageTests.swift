import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsSQLite

/// What a person reads when the SQLite backend cannot do its work: what failed, where, what to do.
@Suite("SQLiteBackend messages")
struct SQLiteMessageTests {
    @Test(.enabled(if: ImmutableFlag.isAvailable, ImmutableFlag.requirement))
    func readOnlyFileSaysSoAndIsLeftUntouched() async throws {
        // Given a cache file that turned read-only (chmod 0400 for a user; immutable for root)
        let file = try SQLiteTestFile()
        defer {
            try? ImmutableFlag.set(file.url, immutable: false)
            file.remove()
        }
        let backend = try file.open()
        try await backend.store(CacheEntry(data: Data("kept".utf8)), forKey: "k")
        await backend.close()
        let before = try file.bytes()
        try ImmutableFlag.set(file.url, immutable: true)

        // When it is opened
        let error = #expect(throws: SQLiteError.self) { try file.open() }

        // Then the error says read-only and how to fix it, not "disk I/O error" nor "directory exists"
        #expect(error == .readOnly(path: file.url.path))
        let text = error?.description ?? ""
        #expect(text.contains("read-only") && text.contains("chmod u+w"), "\(text)")
        #expect(!text.contains("I/O error") && !text.contains("directory exists"))
        #expect(try file.bytes() == before)
    }

    @Test func directoryUnderARegularFileNamesTheFile() throws {
        // Given a path whose parent is a regular file
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.appending("a-file")
        try Data("x".utf8).write(to: blocker)

        // When a backend is opened below it
        let error = #expect(throws: AssetsError.self) {
            _ = try SQLiteBackend(path: blocker.appendingPathComponent("cache/cache.sqlite"))
        }

        // Then the message names the file, not "NSCocoaErrorDomain error 512"
        let text = error?.description ?? ""
        #expect(text.contains("\(blocker.path) is a file, not a directory"), "\(text)")
        #expect(!text.contains("NSCocoaErrorDomain"))
    }

    @Test func wrappedReasonsEndInOneFullStop() async throws {
        // Given a store that fails inside SQLite
        let file = try SQLiteTestFile()
        defer { file.remove() }
        let backend = try file.open()
        await backend._failNextWrite()

        // When it fails, then the message has SQLite's reason and a single full stop after it
        let error = await #expect(throws: AssetsError.self) {
            try await backend.store(CacheEntry(data: Data("x".utf8)), forKey: "k")
        }
        let text = error?.description ?? ""
        #expect(text.contains("CHECK constraint failed"), "\(text)")
        #expect(!text.contains(".."), "\(text)")
        #expect(!text.contains(".;"), "\(text)")
    }
}
