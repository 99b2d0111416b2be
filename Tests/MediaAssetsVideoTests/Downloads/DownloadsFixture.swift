import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

/// An origin, a manager over a temporary disk cache, and a `VideoDownloads` in the same directory.
struct DownloadsFixture {
    let environment: OriginEnvironment
    let downloads: VideoDownloads
    /// The disk cache's own directory when it has another size limit than the environment's manager.
    let cacheDirectory: TemporaryDirectory?
    var directory: URL { environment.directory.url.appendingPathComponent("downloads") }

    init(
        quota: Int? = nil, rangeSize: Int = 16 << 20, parallelSegments: Int = 8, startsPaused: Bool = false,
        diskSizeLimit: Int = 512 << 20
    ) throws {
        environment = try OriginEnvironment()
        cacheDirectory = diskSizeLimit == 512 << 20 ? nil : try TemporaryDirectory("DownloadsCache")
        let manager =
            try cacheDirectory.map { try AssetsManager.forTesting(directory: $0, diskSizeLimit: diskSizeLimit) }
            ?? environment.manager
        downloads = try VideoDownloads(
            manager: manager,
            configuration: .init(
                directory: environment.directory.url.appendingPathComponent("downloads"), quota: quota,
                maximumParallelSegments: parallelSegments, rangeSize: rangeSize, startsPaused: startsPaused))
    }

    var origin: SampleOrigin { environment.origin }
    var manager: AssetsManager { downloads.manager }

    /// A second manager of downloads on the same directory, as a restart makes (this one is closed first).
    func reopened(startsPaused: Bool = false) async throws -> VideoDownloads {
        await downloads.close()
        return try VideoDownloads(
            manager: manager, configuration: .init(directory: directory, startsPaused: startsPaused))
    }

    /// The body bytes the origin sent for `path`, over every request.
    func bytesSent(_ path: String) -> Int {
        origin.requests(for: path).map(\.bodyBytesSent).reduce(0, +)
    }

    /// Serves `source` at `path` from a gated origin, enqueues its download, lets the first range request through
    /// and waits until the second one has arrived (and waits at the gate).
    func enqueueHeldAtSecondRange(_ path: String, _ source: Data) async throws -> VideoDownload {
        let url = environment.serve(path, source, behavior: .init(gated: true))
        let download = try downloads.enqueue(AssetRequest(url: url))
        try await origin.waitForInFlight(path: path, count: 1)
        origin.release(path)
        try await origin.waitForRequests(path: path, count: 2)
        return download
    }

    func tearDown() {
        environment.tearDown()
        cacheDirectory?.remove()
    }
}

extension VideoDownload.State {
    /// Whether it is `.failed` with an error `matches` accepts.
    func failed(where matches: (VideoDownloadError) -> Bool) -> Bool {
        if case .failed(let error) = self { return matches(error) }
        return false
    }
}
