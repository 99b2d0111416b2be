import Foundation
import MediaAssets
import MediaAssetsImage

// README: "Quick start: ImageUtil"
func quickStartImages(manager: AssetsManager) async throws {
    let images = ImageUtil(manager: manager)
    let url = URL(string: "https://example.com/avatars/42.jpg")!

    // Downloaded once, decoded, styled; the original and each styled variant are cached
    // (memory in front of disk), the variant under "<key>@circle(96,border=2,#ffffffff)".
    let avatar = try await images.image(for: url, style: .circle(diameter: 96, borderWidth: 2, borderColor: .white))
    let square = try await images.image(for: url, style: .rectangle(size: .square(64)))  // no new download
    let png = try ImageEncoder.png(avatar)  // premultiplied RGBA8 in, PNG out
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
