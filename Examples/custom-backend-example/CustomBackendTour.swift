import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsSQLite

/// Registering backends: one of the app's own under `.custom`, and SQLite in place of `.disk`.
enum CustomBackendTour {
    static func run(directory: URL) async throws {
        let media = try await SampleMedia.make(avatarCount: 2, videoByteCount: 0)
        let host = try SampleHost.start(media)
        defer { host.stop() }
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("disk")), loader: LocalFileLoader(),
                keyFactory: host.keyFactory
            )
        )
        print("custom-backend-example: registering cache backends with an AssetsManager")
        print("  origin  \(host.origin.baseURL.absoluteString)  (embedded SampleOrigin, generated media, no network)")
        print("  cache   \(directory.path)")
        print("")

        let files = try DirectoryBackend(directory: directory.appendingPathComponent("files"))
        try await useDirectoryBackend(files, manager: manager, host: host)
        print("")
        let sqlite = try SQLiteBackend(path: directory.appendingPathComponent("cache.sqlite"))
        try await useSQLiteForDisk(sqlite, manager: manager, host: host)
        print("")
        try await ImageUtilPart.run(manager: manager, sqlite: sqlite, host: host)
        print("")
        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit
        await StatisticsReport.print(manager: manager)
    }

    /// The app's own backend under `.custom("files")`: bytes by key, then a fetch through it.
    private static func useDirectoryBackend(
        _ files: DirectoryBackend, manager: AssetsManager, host: SampleHost
    ) async throws {
        manager.register(files, for: .custom("files"))
        print("1. DirectoryBackend (written in this example) registered for .custom(\"files\")")
        print("   store   \(files.directory.path)")

        try await manager.writeData(Data("Hello, cache!".utf8), forKey: "greeting", storageType: .custom("files"))
        let greeting = try await manager.readData(forKey: "greeting", storageType: .custom("files"))
        let greetingText = greeting.map { "\"" + String(decoding: $0, as: UTF8.self) + "\"" } ?? "nil"
        print("   writeData \"greeting\", then readData: \(greetingText)")
        let missing = try await manager.readData(forKey: "missing", storageType: .custom("files"))
        print("   readData \"missing\": \(missing.map { "\($0.count) bytes" } ?? "nil (a miss)")")
        try await manager.removeData(forKey: "greeting", storageType: .custom("files"))
        let removed = try await manager.readData(forKey: "greeting", storageType: .custom("files"))
        print("   removeData \"greeting\", then readData: \(removed == nil ? "nil" : "still there")")

        let url = host.url(for: host.media.animations[0].path)
        var table = TextTable(header: ["fetch", "from", "bytes", "origin requests"], indent: 3)
        for attempt in ["first", "second"] {
            let requestsBefore = host.requestCount
            let entry = try await manager.entry(for: AssetRequest(url: url), storageType: .custom("files"))
            let requests = host.requestCount - requestsBefore
            let source = requests > 0 ? "network" : "DirectoryBackend"
            table.add([attempt, source, Formatting.bytes(entry.data.count), "+\(requests)"])
        }
        print("   manager.entry(for: \(url.lastPathComponent), storageType: .custom(\"files\")):")
        table.print()
        let counts = files.callCounts
        print(
            "   calls the manager made: reads \(counts.reads) (hits \(counts.hits)), stores \(counts.stores), "
                + "removes \(counts.removes)")
    }

    /// SQLite registered for `.disk`: `.hybrid(.image)` is then memory in front of SQLite.
    private static func useSQLiteForDisk(
        _ sqlite: SQLiteBackend, manager: AssetsManager, host: SampleHost
    ) async throws {
        manager.register(sqlite, for: .disk)
        print("2. SQLiteBackend registered in place of .disk")
        print("   database  \(sqlite.configuration.path.path)")
        let avatar = host.media.avatars[0]
        let url = host.url(for: avatar)
        let key = manager.cacheKey(for: AssetRequest(url: url))

        let requestsBefore = host.requestCount
        let entry = try await manager.entry(for: AssetRequest(url: url), storageType: .hybrid(.image))
        print(
            "   manager.entry(for: \(url.lastPathComponent), storageType: .hybrid(.image)): "
                + "\(Formatting.bytes(entry.data.count)), "
                + "origin requests +\(host.requestCount - requestsBefore)")
        let inSQLite = try await sqlite.entry(forKey: key)
        let sqliteSize = inSQLite.map { Formatting.bytes($0.data.count) } ?? "missing"
        print("   the same key read from SQLite directly: \(sqliteSize)")

        await manager.trimMemory()
        let requestsAfterTrim = host.requestCount
        let again = try await manager.entry(for: AssetRequest(url: url), storageType: .hybrid(.image))
        print(
            "   after trimMemory(), .hybrid(.image) again: \(Formatting.bytes(again.data.count)) from SQLite, "
                + "origin requests +\(host.requestCount - requestsAfterTrim)")
    }
}
