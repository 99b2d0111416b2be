import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

/// Servers that lie, change the resource, ignore Range or drop the connection: a download ends byte-exact,
/// starts over, or fails with a typed error, and is never reported complete with wrong bytes.
@Suite struct DownloadFaultTests {
    @Test func aResourceChangedMidDownloadStartsOverAndEndsWithTheNewBytes() async throws {
        // Given a 512 KiB file fetched 128 KiB a request, the origin gated after its first range
        let fixture = try DownloadsFixture(rangeSize: 128 << 10)
        defer { fixture.tearDown() }
        let download = try await fixture.enqueueHeldAtSecondRange(
            "/changing.mp4", testBytes(count: 512 << 10, seed: 41))

        // When the resource is replaced (other bytes, another length) before the second range is answered
        let replacement = testBytes(count: 300 << 10, seed: 42)
        fixture.origin.replace("/changing.mp4", data: replacement)
        fixture.origin.setBehavior("/changing.mp4", .normal)
        let done = try await fixture.downloads.waitUntilFinished(download.id)

        // Then the If-Range request got the new content whole, and the download holds exactly it
        let second = fixture.origin.requests(for: "/changing.mp4")[1]
        #expect(second.status == 200 && second.headers["if-range"] != nil)
        #expect(try Data(contentsOf: done.localURL) == replacement)
        #expect(done.progress.totalBytes == replacement.count)
    }

    @Test func aServerIgnoringRangeIsReadThroughAndAResumeSkipsWhatIsOnDisk() async throws {
        // Given a server that answers every request with the whole body, and a download paused after its
        // first 64 KiB arrived from a server that honoured Range
        let fixture = try DownloadsFixture(rangeSize: 64 << 10)
        defer { fixture.tearDown() }
        let source = testBytes(count: 300 << 10, seed: 43)
        let download = try await fixture.enqueueHeldAtSecondRange("/norange.mp4", source)
        await fixture.downloads.pause(download.id)
        fixture.origin.setBehavior("/norange.mp4", .init(ignoreRange: true))

        // When it resumes against the server ignoring Range
        try fixture.downloads.resume(download.id)
        let done = try await fixture.downloads.waitUntilFinished(download.id)

        // Then one 200 carried the rest, the first 64 KiB skipped, and the file is byte-exact
        let last = try #require(fixture.origin.requests(for: "/norange.mp4").last)
        #expect(last.status == 200 && last.headers["range"] == "bytes=65536-131071")
        #expect(try Data(contentsOf: done.localURL) == source)
    }

    @Test func aConnectionDroppedOverAndOverStillEndsByteExactFromWhereEachStopped() async throws {
        // Given a server that cuts every answer after 40 KiB, and ranges of 64 KiB
        let fixture = try DownloadsFixture(rangeSize: 64 << 10)
        defer { fixture.tearDown() }
        let source = testBytes(count: 200 << 10, seed: 44)
        let url = fixture.environment.serve("/cut.mp4", source, behavior: .init(closeAfterBodyBytes: 40 << 10))

        // When it is downloaded
        let done = try await fixture.downloads.waitUntilFinished(fixture.downloads.enqueue(AssetRequest(url: url)).id)

        // Then each request went on from the last byte written, and the file is byte-exact
        #expect(try Data(contentsOf: done.localURL) == source)
        let starts = fixture.origin.requests(for: "/cut.mp4").compactMap { $0.headers["range"] }
            .map { Int($0.dropFirst(6).split(separator: "-")[0])! }
        #expect(starts == starts.sorted() && Set(starts).count == starts.count)
        #expect(starts.first == 0 && starts.count == 5)  // 40 KiB a request, 200 KiB in all
    }

    @Test(arguments: [100, -100])
    func aServerLyingAboutLengthsEndsByteExactOrFailsTypedNeverCompleteWithWrongBytes(offset: Int) async throws {
        // Given a server whose Content-Length lies (its Content-Range tells the truth), and downloads giving up
        // after 2 attempts in a row without progress
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let source = testBytes(count: 50_000, seed: 45)
        let url = environment.serve("/liar.mp4", source, behavior: .init(contentLengthOffset: offset))
        let downloads = try VideoDownloads(
            manager: environment.manager,
            configuration: .init(directory: environment.directory.url.appendingPathComponent("d"), maximumAttempts: 2))

        // When it is downloaded
        let download = try downloads.enqueue(AssetRequest(url: url))
        let outcome: Result<VideoDownload, Error>
        do {
            outcome = .success(try await downloads.waitUntilFinished(download.id))
        } catch {
            outcome = .failure(error)
        }

        // Then a length declared high still ends byte-exact (the bytes and the Content-Range total agree);
        // one declared low cuts every answer short of the end, and fails typed, incomplete and never served
        switch outcome {
        case .success(let done):
            #expect(offset > 0)
            #expect(try Data(contentsOf: done.localURL) == source)
        case .failure(let error):
            #expect(offset < 0)
            #expect(
                error as? VideoDownloadError
                    == .unexpectedResponse(
                        url: url, reason: "2 answers for bytes 49900- brought no byte"))
            #expect(downloads.download(id: download.id)?.progress.bytesDownloaded == 49_900)
            let video = VideoUtil(manager: environment.manager, downloads: downloads)
            environment.origin.resetLog()
            _ = try? await video.contentInfo(for: url)
            #expect(environment.origin.totalRequestCount > 0, "a failed download is not read as the video")
        }
    }

    @Test func aContentRangeThatDoesNotStartWhereAskedIsRefusedAndNothingIsWritten() async throws {
        // Given a loader answering every range with bytes shifted by one
        let directory = try TemporaryDirectory("DownloadFaults")
        defer { directory.remove() }
        let source = testBytes(count: 4 * 65_536, seed: 46)
        let manager = try AssetsManager.forTesting(
            directory: directory, loader: FaultyRangeLoader(data: source, fault: .shiftedContentRange))
        let downloads = try VideoDownloads(
            manager: manager,
            configuration: .init(directory: directory.url.appendingPathComponent("d"), rangeSize: 65_536))
        let url = try #require(URL(string: "https://example.com/clip.mp4"))

        // When it is downloaded (the first range, at byte 0, is answered right; the next ones are shifted)
        let download = try downloads.enqueue(AssetRequest(url: url))
        let error = await #expect(throws: VideoDownloadError.self) {
            try await downloads.waitUntilFinished(download.id)
        }

        // Then the error names the bytes the server sent where others were asked, and only the first range
        // is on disk
        #expect(error == .unexpectedResponse(url: url, reason: "bytes 65537-131072 where 65536- were asked"))
        #expect(downloads.download(id: download.id)?.progress.bytesDownloaded == 65_536)
    }
}
