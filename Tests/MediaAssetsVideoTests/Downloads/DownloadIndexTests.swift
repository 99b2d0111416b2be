import Foundation
import MediaAssets
@_spi(Fuzzing) import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct DownloadIndexTests {
    @Test func theQueueSurvivesARestartWithItsRequestsAndResumes() async throws {
        // Given downloads held at start, with a progressive file and an HLS stream queued (a token header on
        // the first), then closed
        let fixture = try DownloadsFixture(startsPaused: true)
        defer { fixture.tearDown() }
        let source = testBytes(count: 200_000, seed: 51)
        let file = fixture.environment.serve("/q.mp4", source)
        let stream = fixture.origin.registerHLSStream(at: "/q", segments: 2)
        let playlist = fixture.origin.url(for: stream.variantPaths[1])
        let ids = try [
            fixture.downloads.enqueue(AssetRequest(url: file, headers: ["Authorization": "Bearer q"])).id,
            fixture.downloads.enqueue(AssetRequest(url: playlist)).id,
        ]
        #expect(fixture.origin.totalRequestCount == 0)

        // When a new manager opens the directory (the first one gone)
        let reopened = try await fixture.reopened()
        let finished = [
            try await reopened.waitUntilFinished(ids[0]), try await reopened.waitUntilFinished(ids[1]),
        ]

        // Then it resumed both, in order, with the header kept across the restart
        #expect(reopened.downloads.map(\.id) == ids && !reopened.rebuiltIndex)
        #expect(try Data(contentsOf: finished[0].localURL) == source)
        #expect(fixture.origin.requests(for: "/q.mp4").allSatisfy { $0.headers["authorization"] == "Bearer q" })
        #expect(finished[1].kind == .hls && finished[1].progress.completedFiles == 4)
    }

    @Test func closeReleasesTheLockWhileACopyOfItsDescriptorIsStillOpen() async throws {
        // Given downloads whose lock descriptor was copied, as a child process this process starts holds it
        // between its fork and its exec (a duplicate shares the open file description the same way)
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let lockPath = fixture.directory.appendingPathComponent(".lock").standardizedFileURL.path
        let descriptor = try #require(Self.openDescriptor(of: lockPath), "the lock file is open")
        let inherited = dup(descriptor)
        #expect(inherited >= 0)
        defer { close(inherited) }

        // When the downloads close while the copy stays open
        await fixture.downloads.close()

        // Then another manager of downloads opens the directory at once
        #expect(throws: Never.self) {
            _ = try VideoDownloads(manager: fixture.manager, configuration: .init(directory: fixture.directory))
        }
    }

    /// The descriptor of this process open on `path`, from `/proc/self/fd`.
    private static func openDescriptor(of path: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap(Int32.init).first { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return target == path
        }
    }

    @Test(arguments: ["garbage", "hostile", "missing"])
    func aDamagedIndexIsRebuiltFromWhatIsOnDisk(damage: String) async throws {
        // Given a completed download, and a directory with an unreadable record beside it
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 100_000, seed: 52)
        let url = fixture.environment.serve("/i.mp4", source)
        let id = try fixture.downloads.enqueue(AssetRequest(url: url)).id
        _ = try await fixture.downloads.waitUntilFinished(id)
        let orphan = fixture.directory.appendingPathComponent("d77")
        try FileManager.default.createDirectory(at: orphan, withIntermediateDirectories: true)
        try Data("{".utf8).write(to: orphan.appendingPathComponent("record.json"))

        // When the index is damaged (unparseable, pointing a file outside its directory, or gone) and the
        // downloads reopen
        let index = fixture.directory.appendingPathComponent("downloads.json")
        switch damage {
        case "garbage": try Data([0x7B, 0x22, 0xFF, 0x00]).write(to: index)
        case "hostile":
            let text = try String(contentsOf: index, encoding: .utf8)
                .replacingOccurrences(of: "\"media.mp4\"", with: "\"..\\/..\\/escape\"")
            try Data(text.utf8).write(to: index)
        default: try FileManager.default.removeItem(at: index)
        }
        let reopened = try await fixture.reopened()

        // Then the download is rebuilt from its own record and files, completed and read offline; the
        // directory whose record is unreadable is gone, and the index on disk is sound again
        #expect(reopened.rebuiltIndex)
        let download = try #require(reopened.download(id: id))
        #expect(download.state == .completed && download.progress.bytesDownloaded == source.count)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        fixture.origin.resetLog()
        let video = VideoUtil(manager: fixture.manager, downloads: reopened)
        #expect(try await video.data(for: url, range: 0..<source.count) == source)
        #expect(fixture.origin.totalRequestCount == 0)
        await reopened.close()
        let third = try VideoDownloads(manager: fixture.manager, configuration: .init(directory: fixture.directory))
        #expect(!third.rebuiltIndex)
    }

    @Test func seededMutationsOfAnIndexNeverCrashItsParser() async throws {
        // Given a real index with a progressive and an HLS download
        let fixture = try DownloadsFixture(startsPaused: true)
        defer { fixture.tearDown() }
        let stream = fixture.origin.registerHLSStream(at: "/f", segments: 1)
        try fixture.downloads.enqueue(AssetRequest(url: fixture.environment.serve("/f.mp4", Data(count: 10))))
        try fixture.downloads.enqueue(AssetRequest(url: fixture.origin.url(for: stream.masterPath)))
        let seed = Array(try Data(contentsOf: fixture.directory.appendingPathComponent("downloads.json")))
        var generator = SeededGenerator(seed: 0x4944_5831)

        // When 2,000 mutations of it are parsed
        for _ in 0..<2_000 {
            fuzzVideoDownloadIndex(Data(generator.mutation(of: seed, inserting: "\"/.:,{}[]0-")))
        }

        // Then nothing crashed, and the unmutated index still opens
        #expect(fixture.downloads.downloads.count == 2)
    }
}
