import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite struct ProgressiveDownloadTests {
    @Test func aFileIsDownloadedByRangesWithProgressAndReadBeforeTheCacheAndTheNetwork() async throws {
        // Given a 1 MiB file and downloads fetching 256 KiB per request
        let fixture = try DownloadsFixture(rangeSize: 256 << 10)
        defer { fixture.tearDown() }
        let source = testBytes(count: 1 << 20, seed: 31)
        let url = fixture.environment.serve("/film.mp4", source, contentType: "video/mp4")

        // When it is downloaded, its progress observed
        let queued = try fixture.downloads.enqueue(AssetRequest(url: url))
        let seen = Mutex<[Int]>([])
        for await update in fixture.downloads.updates(of: queued.id) {
            seen.withLock { $0.append(update.progress.bytesDownloaded) }
        }
        let done = try await fixture.downloads.waitUntilFinished(queued.id)

        // Then the file is byte-exact, fetched in four ranges (the first telling the length), with rising
        // progress, and If-Range on every request after the first
        #expect(done.state == .completed && done.kind == .progressive)
        #expect(try Data(contentsOf: done.localURL) == source)
        #expect(
            done.progress
                == .init(
                    bytesDownloaded: source.count, totalBytes: source.count, completedFiles: 0,
                    totalFiles: nil))
        let requests = fixture.origin.requests(for: "/film.mp4")
        #expect(
            requests.compactMap { $0.headers["range"] } == [
                "bytes=0-262143", "bytes=262144-524287", "bytes=524288-786431", "bytes=786432-1048575",
            ])
        #expect(requests.dropFirst().allSatisfy { $0.headers["if-range"] == fixture.origin.etag(for: "/film.mp4") })
        let progress = seen.withLock { $0 }
        #expect(progress == progress.sorted() && progress.last == source.count)

        // And a VideoUtil and an HLS-free proxy path given the downloads read it with no origin request
        fixture.origin.resetLog()
        let video = VideoUtil(manager: fixture.manager, downloads: fixture.downloads)
        #expect(try await video.contentInfo(for: url).length == source.count)
        #expect(try await video.data(for: url, range: 1_000..<5_000_000) == source[1_000...])
        var streamed = Data()
        for try await piece in video.stream(for: url, range: 0..<source.count) { streamed.append(piece) }
        #expect(streamed == source)
        #expect(fixture.origin.totalRequestCount == 0)
        #expect(video.statistics.bytesServedFromDownloads == 2 * source.count - 1_000)
    }

    @Test func aResourceLargerThanTheCacheBudgetIsKeptAndImagesFillingTheCacheNeverEvictIt() async throws {
        // Given a disk cache of 1 MiB and a 3 MiB video, which VideoUtil alone would play through uncached
        let fixture = try DownloadsFixture(rangeSize: 1 << 20, diskSizeLimit: 1 << 20)
        defer { fixture.tearDown() }
        let source = testBytes(count: 3 << 20, seed: 32)
        let url = fixture.environment.serve("/big.mp4", source, contentType: "video/mp4")

        // When it is downloaded, then 4 MiB of images pass through the disk cache
        let download = try fixture.downloads.enqueue(AssetRequest(url: url))
        _ = try await fixture.downloads.waitUntilFinished(download.id)
        for index in 0..<64 {
            let image = testBytes(count: 64 << 10, seed: UInt64(100 + index))
            try await fixture.manager.writeData(image, forKey: "image-\(index)", storageType: .disk)
        }

        // Then the cache evicted images to stay in budget, and the download is whole and served offline
        let disk = try #require(await fixture.manager.statistics()[.disk])
        #expect(disk.evictions > 0 && disk.bytes <= 1 << 20)
        fixture.origin.resetLog()
        let video = VideoUtil(manager: fixture.manager, downloads: fixture.downloads)
        #expect(try await video.data(for: url, range: 0..<source.count) == source)
        #expect(fixture.origin.totalRequestCount == 0)
        #expect(fixture.downloads.bytesUsed == source.count)
    }

    @Test func aDownloadPastTheQuotaFailsWithATypedErrorAndWritesNothing() async throws {
        // Given a quota of 1 MiB, and 600 KiB already downloaded
        let fixture = try DownloadsFixture(quota: 1 << 20)
        defer { fixture.tearDown() }
        let small = fixture.environment.serve("/small.mp4", testBytes(count: 600 << 10, seed: 33))
        let large = fixture.environment.serve("/large.mp4", testBytes(count: 600 << 10, seed: 34))
        _ = try await fixture.downloads.waitUntilFinished(fixture.downloads.enqueue(AssetRequest(url: small)).id)

        // When a second 600 KiB file is downloaded
        let second = try fixture.downloads.enqueue(AssetRequest(url: large))
        let error = await #expect(throws: VideoDownloadError.self) {
            try await fixture.downloads.waitUntilFinished(second.id)
        }

        // Then it fails naming what it needed and what was left, with none of its bytes fetched past the
        // first answer's head
        #expect(error == .quotaExceeded(url: large, needed: 600 << 10, available: (1 << 20) - (600 << 10)))
        let failed = try #require(fixture.downloads.download(id: second.id))
        #expect(failed.progress.bytesDownloaded == 0)
        #expect(fixture.downloads.bytesUsed == 600 << 10)

        // And once the first is removed, resuming the second completes it
        try await fixture.downloads.remove(fixture.downloads.download(for: AssetRequest(url: small))!.id)
        try fixture.downloads.resume(second.id)
        #expect(try await fixture.downloads.waitUntilFinished(second.id).state == .completed)
    }

    @Test func pauseKeepsTheBytesAndResumeFetchesOnlyTheRest() async throws {
        // Given a 512 KiB file fetched 128 KiB a request from a gated origin, its first range let through and
        // its second waiting at the gate
        let fixture = try DownloadsFixture(rangeSize: 128 << 10)
        defer { fixture.tearDown() }
        let source = testBytes(count: 512 << 10, seed: 35)
        let download = try await fixture.enqueueHeldAtSecondRange("/paused.mp4", source)
        try await fixture.origin.waitForInFlight(path: "/paused.mp4", count: 1)
        #expect(fixture.downloads.download(id: download.id)?.progress.bytesDownloaded == 128 << 10)

        // When it is paused, then resumed against an open origin
        await fixture.downloads.pause(download.id)
        #expect(fixture.downloads.download(id: download.id)?.state == .paused)
        try await fixture.origin.waitForFinishedRequests(path: "/paused.mp4", count: 2)
        fixture.origin.setBehavior("/paused.mp4", .normal)
        try fixture.downloads.resume(download.id)
        let done = try await fixture.downloads.waitUntilFinished(download.id)

        // Then it completed byte-exact, the origin having sent each byte once
        #expect(try Data(contentsOf: done.localURL) == source)
        try await fixture.origin.waitForFinishedRequests(path: "/paused.mp4", count: 5)
        #expect(fixture.bytesSent("/paused.mp4") == source.count)
    }

    @Test func cancelAndRemoveDeleteTheFilesAndTheReadersGoBackToTheNetwork() async throws {
        // Given a completed download
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 100_000, seed: 36)
        let url = fixture.environment.serve("/gone.mp4", source)
        let download = try fixture.downloads.enqueue(AssetRequest(url: url))
        let done = try await fixture.downloads.waitUntilFinished(download.id)

        // When it is cancelled (a completed download stays), then removed
        try await fixture.downloads.cancel(download.id)
        let kept = FileManager.default.fileExists(atPath: done.localURL.path)
        try await fixture.downloads.remove(download.id)

        // Then its directory is gone, the index forgot it, and a VideoUtil fetches from the origin again
        #expect(kept)
        #expect(!FileManager.default.fileExists(atPath: done.localURL.deletingLastPathComponent().path))
        #expect(fixture.downloads.downloads.isEmpty && fixture.downloads.bytesUsed == 0)
        fixture.origin.resetLog()
        let video = VideoUtil(manager: fixture.manager, downloads: fixture.downloads)
        #expect(try await video.data(for: url, range: 0..<10) == source[0..<10])
        #expect(fixture.origin.requestCount(for: "/gone.mp4") >= 1)
        await #expect(throws: VideoDownloadError.unknownDownload(id: download.id)) {
            try await fixture.downloads.remove(download.id)
        }
    }
}
