import Foundation
import MediaAssets
import MediaAssetsImage

// README: "Quick start: ImageUtil"
func quickStartImages(manager: AssetsManager) async throws {
    let images = ImageUtil(manager: manager)
    let url = URL(string: "https://example.com/avatars/42.jpg")!

    // Downloaded once, decoded, styled; the original and each styled variant are cached (memory in
    // front of disk), the variant under "<key>@circle(96,border=2,#ffffffff)@auto-q85" (style@format).
    let avatar = try await images.image(for: url, style: .circle(diameter: 96, borderWidth: 2, borderColor: .white))
    let square = try await images.image(for: url, style: .rectangle(size: .square(64)))  // no new download
    let png = try ImageEncoder.png.encode(avatar)  // premultiplied RGBA8 in, PNG out
    print(avatar.width, square.width, png.count, images.statistics)
}

// README: "ImageUtil" (lists: a handle per row, prefetching)
func listOfAvatars(images: ImageUtil, rows: [URL]) async throws {
    let style = AvatarStyle.circle(diameter: 96)
    // Low priority, at most 4 at once for this prefetcher; the styled image lands where rows read it.
    let prefetcher = ImagePrefetcher(util: images, style: style)
    prefetcher.startPrefetching(with: Array(rows.dropFirst(8).prefix(24)))

    // A row appears: its task joins the prefetch under way (if any) and raises it.
    let task = images.task(for: AssetRequest(url: rows[0], priority: .high), style: style, previews: true)
    for await preview in task.previews { print("preview", preview.width) }  // progressive JPEGs only
    let avatar = try await task.image  // a memory hit when the prefetch finished first
    task.priority = .low  // or cancel(), when the row scrolls away
    prefetcher.stopPrefetching(with: [rows[9]])  // a row left the prefetch window
    print(avatar.width, task.progress?.fractionCompleted ?? 1)
}

// README: "Quick start: ImageUtil" (animations)
func quickStartAnimatedImages(images: ImageUtil, url: URL) async throws {
    // A GIF or animated WebP played at 200 px: a few frames decoded ahead, one canvas at the file's size,
    // never every frame (a 200-frame 1000×1000 GIF stays under 16 MiB; its frames would be 800 MB).
    let frames = try await images.animationFrames(for: AssetRequest(url: url), targetSize: .square(200))
    print(frames.info.frameCount, frames.info.loopCount)  // from the headers: no frame decoded yet
    for try await frame in frames.prefix(frames.info.frameCount) {  // one pass; loop count 0 plays forever
        print(frame.image.width, frame.duration)
    }

    // Small animations decoded whole, every frame in a style; refused from the headers when over the limits.
    let avatar = try await images.animatedImage(for: AssetRequest(url: url), style: .circle(diameter: 48))
    print(avatar.frames.count, avatar.loopCount)
}

// README: "ImageUtil" (a service: encoded bytes, a validator, a 304)
func serveAvatar(images: ImageUtil, url: URL, ifNoneMatch: String?) async throws -> (status: Int, body: Data) {
    // The stored variant's bytes as they are (no decode on a hit), with a content type and a strong ETag.
    let avatar = try await images.encodedImage(for: url, style: .circle(diameter: 96), format: .webp(quality: 80))
    if avatar.isNotModified(ifNoneMatch: ifNoneMatch) { return (304, Data()) }  // RFC 9110 weak comparison
    print(avatar.contentType, avatar.entityTag, avatar.format)  // image/webp "5f0c…" WEBP
    return (200, avatar.data)
}

// README: "ImageUtil" (a service's configuration, and shutting down before exit)
func serviceManager(directory: URL) async throws {
    let manager = try AssetsManager(
        configuration: .init(
            disk: .init(directory: directory),
            executor: .threads(ProcessInfo.processInfo.activeProcessorCount),  // decode/encode off the coop pool
            stagedWriteLimit: 16 << 20  // at most 16 MiB of results waiting for the disk
        ))
    let images = ImageUtil(manager: manager)
    _ = try await images.image(for: URL(string: "https://example.com/a.jpg")!, style: .circle(diameter: 96))
    print(manager.stagedWriteBytes)  // results returned before their bytes were written
    await manager.shutdown()  // stops prefetches, waits for background work and every staged write
}
