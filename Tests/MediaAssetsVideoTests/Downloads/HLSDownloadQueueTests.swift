import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct HLSDownloadQueueTests {
    @Test func eightSegmentsDownloadAtOnceAndTheStreamIsThenReadOffline() async throws {
        // Given a media playlist of 12 segments (14 files with its key and init section), every file gated
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let stream = fixture.origin.registerHLSStream(at: "/p", segments: 12)
        let playlist = stream.variantPaths[0]
        let files = try #require(stream.resourcePaths[playlist])
        for path in files { fixture.origin.setBehavior(path, .init(gated: true)) }
        let url = fixture.origin.url(for: playlist)

        // When it is downloaded
        let download = try fixture.downloads.enqueue(AssetRequest(url: url))
        #expect(download.kind == .hls)

        // Then 8 requests wait at the gates at once, and no more
        try await waitUntil("8 files in flight") { files.map { fixture.origin.inFlight(for: $0) }.reduce(0, +) == 8 }
        for path in files { fixture.origin.setBehavior(path, .normal) }
        let done = try await fixture.downloads.waitUntilFinished(download.id)
        #expect(fixture.origin.peakInFlight == 8)
        #expect(done.progress.completedFiles == 14 && done.progress.totalFiles == 14)
        #expect(files.allSatisfy { fixture.origin.requestCount(for: $0) == 1 })

        // And the key sits beside the segments, and the local playlist names local files
        let directory = done.localURL.deletingLastPathComponent()
        let key = try Data(contentsOf: fixture.origin.url(for: files[0]))
        #expect(try Data(contentsOf: directory.appendingPathComponent("video-key-00000.bin")) == key)
        guard case .media(let local) = try HLSPlaylist.parse(Data(contentsOf: done.localURL), url: done.localURL)
        else {
            Issue.record("the local playlist is not a media playlist")
            return
        }
        #expect(local.segments.count == 12 && local.segments.allSatisfy { $0.uri.isFileURL })

        // And an HLSUtil given the downloads reads the playlist and every file with no origin request, and
        // nothing of the download went into the cache
        fixture.origin.resetLog()
        let hls = HLSUtil(manager: fixture.manager, downloads: fixture.downloads)
        let media = try await hls.mediaPlaylist(for: AssetRequest(url: url))
        for (segment, file) in zip(media.segments, local.segments) {
            let bytes = try await hls.data(for: HLSResource(segment))
            #expect(bytes == (try Data(contentsOf: file.uri)))
        }
        #expect(fixture.origin.totalRequestCount == 0)
        #expect(hls.statistics.bytesServedFromDownloads > 0 && hls.statistics.resourcesStored == 0)
        let disk = try #require(await fixture.manager.statistics()[.disk])
        #expect(disk.writes <= 1)  // the VOD playlist's text at most: no segment was written twice
    }

    @Test func aMasterPlaylistDownloadsItsVariantAndAudioAndALiveOneIsRefused() async throws {
        // Given a master playlist with two variants and audio, and a live media playlist
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let stream = fixture.origin.registerHLSStream(at: "/m", segments: 3)
        let live = fixture.environment.serve(
            "/live/index.m3u8", Data(SampleOrigin.hlsMediaPlaylist(segments: 2, endList: false).utf8))

        // When both are downloaded, the master held to 600 kbit/s
        let master = try fixture.downloads.enqueue(
            AssetRequest(url: fixture.origin.url(for: stream.masterPath)), maximumBandwidth: 600_000)
        let done = try await fixture.downloads.waitUntilFinished(master.id)
        let liveDownload = try fixture.downloads.enqueue(AssetRequest(url: live))
        let error = await #expect(throws: VideoDownloadError.self) {
            try await fixture.downloads.waitUntilFinished(liveDownload.id)
        }

        // Then the lower variant and the audio were downloaded under a local master, and the live stream
        // failed saying why
        #expect(done.localURL.lastPathComponent == "index.m3u8")
        #expect(
            fixture.origin.requestCount(for: "/m/v0/seg0.ts") == 1
                && fixture.origin.requestCount(for: "/m/v1/seg0.ts") == 0)
        #expect(fixture.origin.requestCount(for: "/m/audio/seg0.aac") == 1)
        #expect(error == .notDownloadable(url: live, reason: "it is not a VOD (EXT-X-ENDLIST) playlist"))
    }
}

@Suite struct HLSDownloadQuotaTests {
    @Test func segmentsWrittenSideBySideNeverPassTheQuotaTogether() async throws {
        // Given a quota of 40 KiB and a stream of 12 segments of 4 KiB (a 16-byte key, a 4 KiB init section)
        let fixture = try DownloadsFixture(quota: 40 << 10)
        defer { fixture.tearDown() }
        let stream = fixture.origin.registerHLSStream(at: "/quota", segments: 12)

        // When it is downloaded, 8 files at a time
        let download = try fixture.downloads.enqueue(AssetRequest(url: fixture.origin.url(for: stream.variantPaths[0])))
        let error = await #expect(throws: VideoDownloadError.self) {
            try await fixture.downloads.waitUntilFinished(download.id)
        }

        // Then it fails on the quota, with no more on disk than the quota allows
        guard case .quotaExceeded(_, let needed, let available)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(needed == 4_096 && available < needed)
        #expect(fixture.downloads.bytesUsed <= 40 << 10)
        let files = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appendingPathComponent(download.id).path)
        #expect(files.filter { $0.hasSuffix(".ts") }.count == 8)
    }
}
