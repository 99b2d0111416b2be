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
