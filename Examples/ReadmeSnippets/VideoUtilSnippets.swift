import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo

// README: "Quick start: VideoUtil"
func quickStartVideo(manager: AssetsManager) async throws {
    let video = VideoUtil(manager: manager)  // 1 MiB chunks in .disk by default
    let url = URL(string: "https://example.com/movie.mp4")!

    let info = try await video.contentInfo(for: url)  // length and type
    let header = try await video.data(for: url, range: 0..<min(info.length, 64 << 10))
    for try await piece in video.stream(for: url, range: 0..<info.length) {  // cached chunks at once,
        print(piece.count)  // missing runs by Range
    }
    print(header.count, video.statistics)  // bytes from cache vs network
}

// README: "Quick start: offline downloads"
func quickStartDownloads(manager: AssetsManager, directory: URL) async throws {
    let downloads = try VideoDownloads(
        manager: manager, configuration: .init(directory: directory, quota: 4 << 30))  // survives restarts
    let film = try downloads.enqueue(AssetRequest(url: URL(string: "https://example.com/film.mp4")!))
    for await update in downloads.updates(of: film.id) {  // state and progress as it goes
        print(update.state, update.progress.fractionCompleted ?? 0)
    }
    let video = VideoUtil(manager: manager, downloads: downloads)  // the download first, then cache, network
    print(try await video.contentInfo(for: film.url).length)
}

// DocC (MediaAssetsVideo): "Stills and feeds"
func showFeed(video: VideoUtil, feed: [URL]) async throws {
    let poster = try await video.frame(for: feed[0], at: .fraction(0.1), style: .circle(diameter: 96))
    print(poster.width, poster.height)  // a styled still, stored for the next ask

    let preloader = VideoPreloader(video: video, configuration: .init(itemsAhead: 3, byteBudget: 24 << 20))
    preloader.setItems(feed.map { AssetRequest(url: $0) })
    preloader.setCurrentIndex(0)  // and again on every swipe
    for await update in preloader.updates() {
        print(update.index, update.state)  // queued, loading, ready, failed, cancelled
    }
}
