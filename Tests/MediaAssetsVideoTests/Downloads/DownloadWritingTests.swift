import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

/// A progressive download is written as its bytes arrive: the file and the progress follow the body, so an
/// origin that stalls mid-body leaves on disk exactly what it sent, and a restart fetches only the rest.
@Suite("Download writing")
struct DownloadWritingTests {
    private static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func aDownloadWhoseOriginStallsHasOnDiskExactlyTheBytesThatArrived() async throws {
        // Given a 1 MB file on an origin that stalls 460,000 bytes into its body
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 1_000_000, seed: 71)
        let url = fixture.environment.serve(
            "/stalled.mp4", source, contentType: "video/mp4", behavior: .init(stallAfterBodyBytes: 460_000))

        // When it is downloaded
        let download = try fixture.downloads.enqueue(AssetRequest(url: url))
        let media = download.localURL

        // Then the file and the progress reach the 460,000 bytes the origin sent while the body stalls
        try await waitUntil("the file to hold the 460,000 bytes that arrived") {
            Self.size(of: media) == 460_000
                && fixture.downloads.download(id: download.id)?.progress.bytesDownloaded == 460_000
        }
        #expect(try Data(contentsOf: media) == source.prefix(460_000))

        // And once the origin is healthy, a pause and resume fetch exactly the rest, byte-exact
        fixture.origin.setBehavior("/stalled.mp4", .normal)
        await fixture.downloads.pause(download.id)
        try fixture.downloads.resume(download.id)
        let done = try await fixture.downloads.waitUntilFinished(download.id)
        #expect(done.state == .completed)
        #expect(try Data(contentsOf: media) == source)
        try await fixture.origin.waitForFinishedRequests(path: "/stalled.mp4", count: 2)
        let requests = fixture.origin.requests(for: "/stalled.mp4")
        #expect(requests.compactMap { $0.headers["range"] } == ["bytes=0-16777215", "bytes=460000-999999"])
        #expect(fixture.bytesSent("/stalled.mp4") == source.count)
    }

    @Test func progressFollowsTheBodyInStepsSmallerThan64KiB() async throws {
        // Given a 1 MB file on an origin whose every answer stalls 40,000 bytes into its body
        let fixture = try DownloadsFixture()
        defer { fixture.tearDown() }
        let source = testBytes(count: 1_000_000, seed: 72)
        let url = fixture.environment.serve(
            "/steps.mp4", source, contentType: "video/mp4", behavior: .init(stallAfterBodyBytes: 40_000))

        // When the download is observed, and paused and resumed at each stall, five times
        let download = try fixture.downloads.enqueue(AssetRequest(url: url))
        let seen = Mutex<Set<Int>>([])
        let observer = Task {
            for await update in fixture.downloads.updates(of: download.id) {
                seen.withLock { _ = $0.insert(update.progress.bytesDownloaded) }
            }
        }
        defer { observer.cancel() }
        for step in 1...5 {
            // Then every stall shows the exact bytes that arrived, to the snapshot and to the observer
            try await waitUntil("progress to reach \(step * 40_000)") {
                fixture.downloads.download(id: download.id)?.progress.bytesDownloaded == step * 40_000
                    && seen.withLock { $0.contains(step * 40_000) }
            }
            #expect(Self.size(of: download.localURL) == step * 40_000)
            await fixture.downloads.pause(download.id)
            try fixture.downloads.resume(download.id)
        }
        let ranges = fixture.origin.requests(for: "/steps.mp4").compactMap { $0.headers["range"] }
        #expect(Array(ranges.prefix(5)) == ["bytes=0-16777215"] + (1...4).map { "bytes=\($0 * 40_000)-999999" })
        await fixture.downloads.pause(download.id)
    }
}
