import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsVideo

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `URL --download DIR`: a progressive file or an HLS stream downloaded for offline play with
/// `VideoDownloads`, progress on standard error. Killed and run again on the same DIR, it resumes: only
/// what is missing is fetched.
enum DownloadCommand {
    /// `timeout`: the seconds a request may wait for a byte before it fails and is asked again from what is
    /// on disk (`URLSessionConfiguration.timeoutIntervalForRequest`; URLSession's 60 s without it).
    static func run(input: String?, to directory: URL, cacheDirectory: URL, timeout: Double?) async throws {
        let source = try HLSCommands.Source.resolve(input)
        defer { source.origin?.stop() }
        var loader: (any DataLoading)?
        if let timeout {
            let session = URLSessionConfiguration.default
            session.timeoutIntervalForRequest = timeout
            loader = URLSessionLoader(configuration: session)
        }
        let manager = try AssetsManager(
            configuration: .init(disk: .init(directory: cacheDirectory), loader: loader, keyFactory: source.keyFactory))
        // Held until the URL is refreshed: a download a killed run left knows the old embedded origin's port.
        let downloads = try VideoDownloads(
            manager: manager, configuration: .init(directory: directory, startsPaused: true))
        if downloads.rebuiltIndex { HLSCommands.log("video-example: the download index was rebuilt from disk") }
        let queued = try downloads.enqueue(AssetRequest(url: source.url))
        let resumedFrom = queued.progress.bytesDownloaded
        HLSCommands.log(
            "video-example: downloading \(source.description) (\(queued.kind.rawValue)) into \(directory.path)"
                + (resumedFrom > 0 && queued.state != .completed
                    ? ", resuming after \(Formatting.bytes(resumedFrom))" : ""))
        if case .failed = queued.state { try downloads.resume(queued.id) }
        if queued.state == .paused { try downloads.resume(queued.id) }
        downloads.resumeAll()
        let bar = ErrorProgressBar()
        for await update in downloads.updates(of: queued.id) { bar.show(update.progress) }
        let finished = try await downloads.waitUntilFinished(queued.id)
        bar.finish()
        await manager.shutdown()
        let fetched = manager.fetchStatistics.bytesDownloaded
        HLSCommands.log(
            "video-example: \(Formatting.bytes(finished.progress.bytesDownloaded)) on disk, "
                + "\(Formatting.bytes(fetched)) fetched by this run")
        print(finished.localURL.path)
    }
}

/// A progress bar on standard error: redrawn in place on a terminal, a line per tenth otherwise.
private final class ErrorProgressBar: @unchecked Sendable {
    // Used from one task only.
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var shownTenth = -1
    private var shownPercent = -1

    func show(_ progress: VideoDownload.Progress) {
        let fraction = progress.fractionCompleted ?? 0
        let percent = Int(fraction * 100)
        var detail = Formatting.bytes(progress.bytesDownloaded)
        if let total = progress.totalBytes { detail += " of \(Formatting.bytes(total))" }
        if let files = progress.totalFiles { detail += ", \(progress.completedFiles)/\(files) files" }
        if isTerminal {
            guard percent != shownPercent else { return }
            shownPercent = percent
            let filled = 32 * percent / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 32 - filled)
            write("\r  [\(bar)] \(percent)%  \(detail)   ")
        } else {
            guard percent / 10 != shownTenth else { return }
            shownTenth = percent / 10
            write("  \(percent)%  \(detail)\n")
        }
    }

    func finish() {
        if isTerminal { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
