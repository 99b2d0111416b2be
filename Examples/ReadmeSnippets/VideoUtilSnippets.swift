import Foundation
import MediaAssets
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
