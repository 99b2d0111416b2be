import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite struct HLSDownloadTests {
    @Test func aDownloadWritesAPlayableLocalCopy() async throws {
        // Given a generated stream with two variants and an audio rendition
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let stream = environment.origin.registerHLSStream(at: "/d", segments: 4)
        let hls = HLSUtil(manager: environment.manager)
        let target = environment.directory.url.appendingPathComponent("offline")
        let reports = Mutex<[HLSUtil.DownloadProgress]>([])

        // When the master is downloaded
        let local = try await hls.download(
            AssetRequest(url: environment.origin.url(for: stream.masterPath)), to: target,
            progress: { progress in reports.withLock { $0.append(progress) } }
        )

        // Then a local master points at local media playlists whose every URI is a file with its extension
        #expect(local.lastPathComponent == "index.m3u8")
        guard case .master(let master) = try HLSPlaylist.parse(Data(contentsOf: local), url: local) else {
            Issue.record("not a master playlist")
            return
        }
        #expect(master.variants.count == 1 && master.variants[0].bandwidth == 1_000_000)
        let audio = try #require(master.audioRendition(for: master.variants[0])?.uri)
        for playlistURL in [master.variants[0].uri, audio] {
            guard case .media(let media) = try HLSPlaylist.parse(Data(contentsOf: playlistURL), url: playlistURL)
            else { Issue.record("not a media playlist"); return }
            #expect(media.isEndList && media.segments.count == 4 && media.duration == 8)
            #expect(media.segments[2].discontinuity)
            for segment in media.segments {
                #expect(segment.uri.isFileURL && FileManager.default.fileExists(atPath: segment.uri.path))
                #expect(["ts", "aac"].contains(segment.uri.pathExtension))
                #expect(segment.key?.uri?.isFileURL == true && segment.map?.uri.pathExtension == "mp4")
            }
        }
        let source = try Data(contentsOf: environment.origin.url(for: "/d/v1/seg3.ts"))
        #expect(try Data(contentsOf: target.appendingPathComponent("video-00005.ts")) == source)
        let last = try #require(reports.withLock { $0.last })
        #expect(last.completedFiles == 12 && last.totalFiles == 12)
    }

    @Test func aResumedDownloadFetchesOnlyWhatIsMissing() async throws {
        // Given a download that failed at its third segment, after its key and init section
        // (the process "killed", its cache gone)
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        environment.origin.registerHLSStream(at: "/r", segments: 5)
        let url = environment.origin.url(for: "/r/v0/index.m3u8")
        let target = environment.directory.url.appendingPathComponent("offline")
        environment.origin.setBehavior("/r/v0/seg2.ts", .init(failNext: 1, failStatus: 404))
        let first = HLSUtil(manager: environment.manager)
        let segment = environment.origin.url(for: "/r/v0/seg2.ts")
        await #expect(throws: AssetsError.httpStatus(code: 404, url: segment)) {
            try await first.download(AssetRequest(url: url), to: target)
        }
        try await environment.manager.removeAll(storageType: .disk)

        // When it is run again by a new util over an empty cache
        let second = HLSUtil(manager: environment.manager)
        let local = try await second.download(AssetRequest(url: url), to: target)

        // Then every file was fetched exactly once over both runs (the first run's other fetches, running
        // beside the failing one, finished and were kept)
        for path in ["key.bin", "init.mp4", "seg0.ts", "seg1.ts", "seg3.ts", "seg4.ts"] {
            #expect(environment.origin.requestCount(for: "/r/v0/\(path)") == 1, "\(path)")
        }
        #expect(environment.origin.requestCount(for: "/r/v0/seg2.ts") == 2)  // the failure, then the fetch
        #expect(second.statistics.filesDownloaded == 1)  // seg2: everything else was on disk
        #expect(local.lastPathComponent == "video.m3u8")
    }

    @Test func downloadedFilesSurviveEvictionOfTheCache() async throws {
        // Given a finished download
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        environment.origin.registerHLSStream(at: "/e", segments: 2)
        let hls = HLSUtil(manager: environment.manager)
        let target = environment.directory.url.appendingPathComponent("offline")
        let url = environment.origin.url(for: "/e/v0/index.m3u8")
        let local = try await hls.download(AssetRequest(url: url), to: target)
        let before = try FileManager.default.contentsOfDirectory(atPath: target.path).sorted()

        // When the cache is emptied (as LRU eviction would)
        try await environment.manager.removeAll(storageType: .disk)

        // Then the download is intact, and downloading again fetches nothing
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() == before)
        environment.origin.resetLog()
        #expect(try await HLSUtil(manager: environment.manager).download(AssetRequest(url: url), to: target) == local)
        #expect(environment.origin.totalRequestCount == 1)  // the playlist only
    }

    @Test func aLiveStreamCannotBeDownloaded() async throws {
        // Given a live playlist
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let live = SampleOrigin.hlsMediaPlaylist(segments: 2, endList: false)
        let url = environment.serve("/l/index.m3u8", Data(live.utf8))

        // When it is downloaded, Then a typed error says why
        let error = await #expect(throws: HLSError.self) {
            try await HLSUtil(manager: environment.manager).download(
                AssetRequest(url: url), to: environment.directory.url.appendingPathComponent("x")
            )
        }
        #expect(error == .unexpectedPlaylistKind(url: url, expected: "VOD (EXT-X-ENDLIST)"))
    }
}
