import Foundation
import MediaAssets
import MediaAssetsAnimation
import MediaAssetsImage
import MediaAssetsVideo
import MediaAssetsVideoProxy

// DocC: MediaAssetsImage (the landing page)
func doccImagesOverview(url: URL) async throws {
    let manager = try AssetsManager()
    let images = ImageUtil(manager: manager)
    let avatar = try await images.image(for: url, style: .circle(diameter: 96))
    print(avatar.width)
}

// DocC: MediaAssetsImage (the landing page: a service's encoded bytes)
func doccEncodedImage(
    images: ImageUtil, url: URL, ifNoneMatch: String?
) async throws -> (status: Int, headers: [String: String], body: Data) {
    let image = try await images.encodedImage(for: url, style: .circle(diameter: 96), format: .webp(quality: 80))
    let headers = ["ETag": image.entityTag.description, "Content-Type": image.contentType]
    if image.isNotModified(ifNoneMatch: ifNoneMatch) { return (304, headers, Data()) }
    return (200, headers, image.data)
}

// DocC: Decoding thumbnails
struct TopHalfThumbnail: ImageProcessing {
    var identifier: String { "top-half(64x32)" }
    var targetSize: PixelSize? { PixelSize(width: 64, height: 32) }
    var regionOfInterest: ImageRegion? { .relative(x: 0, y: 0, width: 1, height: 0.5) }

    func process(_ image: Image) throws -> Image {
        // Handed exactly the top half: scale it.
        let resize: ImageProcessors.Resize = .resize(size: PixelSize(width: 64, height: 32), contentMode: .aspectFit)
        return try resize.process(image)
    }
}

// DocC: Playing animations
func doccPlayingAnimations(images: ImageUtil, request: AssetRequest, show: (Image) -> Void) async throws {
    let frames = try await images.animationFrames(for: request, targetSize: .square(200))
    for try await frame in frames {
        show(frame.image)
        try await Task.sleep(for: frame.duration)
    }
}

// DocC: MediaAssetsAnimation (the landing page)
func doccAnimationsOverview(url: URL) async throws {
    let animations = AnimationUtil(manager: try AssetsManager())
    let animation = try await animations.animation(for: url)
    print(animation.frameRate)
}

// DocC: MediaAssetsAnimation (image assets)
func doccAnimationAssets(animations: AnimationUtil, url: URL) async throws {
    let loaded = try await animations.loadedAnimation(for: url)
    let badge = loaded.image(forAssetID: "badge")  // decoded, cached, charged to .lru(.lottie)
    let archive = try await animations.exportDotLottie(for: url)  // a self-contained .lottie
    print(badge?.width ?? 0, archive.count)
}

// DocC: MediaAssetsVideo (the landing page)
func doccVideoOverview(url: URL) async throws {
    let video = VideoUtil(manager: try AssetsManager())
    let firstMegabyte = try await video.data(for: url, range: 0..<1_048_576)  // less for a smaller file
    print(firstMegabyte.count)
}

// DocC: HLS and streaming
func doccHLSPrefetch(manager: AssetsManager, streamURL: URL) async throws {
    let hls = HLSUtil(manager: manager)
    try await hls.prefetch(AssetRequest(url: streamURL), seconds: 10)
}

// DocC: HLS and streaming (downloads)
func doccDownloads(manager: AssetsManager, offlineDirectory: URL, filmURL: URL, token: String) async throws {
    let downloads = try VideoDownloads(
        manager: manager, configuration: .init(directory: offlineDirectory, quota: 4 << 30))
    let film = try downloads.enqueue(AssetRequest(url: filmURL, headers: ["Authorization": token]))
    for await update in downloads.updates(of: film.id) {
        print(update.state, update.progress.fractionCompleted ?? 0)
    }
    let video = VideoUtil(manager: manager, downloads: downloads)  // reads the download first
    let hls = HLSUtil(manager: manager, downloads: downloads)
    print(video, hls)
}

// DocC: MediaAssetsVideoProxy (the landing page)
func doccVideoProxy(manager: AssetsManager, streamURL: URL) throws {
    let proxy = VideoProxy(video: VideoUtil(manager: manager), hls: HLSUtil(manager: manager))
    try proxy.start()
    defer { proxy.stop() }
    let playable = proxy.proxyURL(for: streamURL)  // for AVPlayer, ExoPlayer, mpv or ffplay
    print(playable)
}
