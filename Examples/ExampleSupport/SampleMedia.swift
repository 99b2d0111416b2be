import Foundation
import MediaAssetsImage

/// The generated media of the examples: portraits, Lottie animations and a byte stream.
public struct SampleMedia: Sendable {
    /// The users' portraits, user 1 first.
    public let avatars: [SampleAvatar]
    /// The valid animations (`confetti.json` with an image asset, `spinner.json`).
    public let animations: [SampleFile]
    /// The image assets the animations reference.
    public let animationImages: [SampleFile]
    /// Well-formed JSON that fails validation, to show a rejected download.
    public let brokenAnimation: SampleFile
    /// A dotLottie archive (stored zip, version 1 layout) holding both animations and the image.
    public let dotLottie: SampleFile
    /// The synthetic byte stream standing in for a video (not a real video), if one was asked for.
    public let video: SampleFile?

    /// Generates the media: `avatarCount` portraits (drawn and encoded concurrently, none for 0) and a
    /// `videoByteCount`-byte stream (none for 0).
    ///
    /// - Throws: `ImageError` if encoding fails.
    public static func make(avatarCount: Int = 40, videoByteCount: Int = 64 << 20) async throws -> SampleMedia {
        let avatars = try await withThrowingTaskGroup(of: SampleAvatar.self) { group in
            for userNumber in stride(from: 1, through: avatarCount, by: 1) {
                group.addTask { try makeAvatar(userNumber: userNumber) }
            }
            var avatars: [SampleAvatar] = []
            for try await avatar in group { avatars.append(avatar) }
            return avatars.sorted { $0.userNumber < $1.userNumber }
        }
        var badge = Canvas(side: 128, background: .transparent)
        let gold = RGBA(red: 0xF5, green: 0xC5, blue: 0x18), cream = RGBA(red: 0xFF, green: 0xF4, blue: 0xC2)
        badge.fillEllipse(centerX: 64, centerY: 64, radiusX: 60, radiusY: 60, color: gold)
        badge.fillEllipse(centerX: 64, centerY: 64, radiusX: 36, radiusY: 36, color: cream)
        let badgePNG = try ImageEncoder.png.encode(badge.image)
        let json = "application/json"
        let archive = StoredZip.archive([
            ("manifest.json", Data(#"{"version":"1","animations":[{"id":"confetti"},{"id":"spinner"}]}"#.utf8)),
            ("animations/confetti.json", Data(SampleAnimations.confetti.utf8)),
            ("animations/spinner.json", Data(SampleAnimations.spinner.utf8)),
            ("images/badge.png", badgePNG),
        ])
        return SampleMedia(
            avatars: avatars,
            animations: [
                SampleFile(
                    path: "/animations/confetti.json", data: Data(SampleAnimations.confetti.utf8), contentType: json
                ),
                SampleFile(
                    path: "/animations/spinner.json", data: Data(SampleAnimations.spinner.utf8), contentType: json
                ),
            ],
            animationImages: [
                SampleFile(path: "/animations/images/badge.png", data: badgePNG, contentType: "image/png")
            ],
            brokenAnimation: SampleFile(
                path: "/animations/broken.json", data: Data(SampleAnimations.broken.utf8), contentType: json
            ),
            dotLottie: SampleFile(path: "/animations/bundle.lottie", data: archive, contentType: "application/zip"),
            video: videoByteCount > 0
                ? SampleFile(
                    path: "/video/sample.bin", data: SampleVideo.bytes(count: videoByteCount),
                    contentType: "application/octet-stream"
                )
                : nil
        )
    }

    /// Every file, for registering with an origin.
    public var allFiles: [SampleFile] {
        avatars.map(\.file) + animations + animationImages + [brokenAnimation, dotLottie] + (video.map { [$0] } ?? [])
    }

    private static let sides = [512, 576, 640, 768, 1024]

    private static func makeAvatar(userNumber: Int) throws -> SampleAvatar {
        let side = sides[(userNumber * 3) % sides.count]
        let isPNG = userNumber % 5 == 0
        let image = AvatarPainter(userNumber: userNumber, side: side, transparentBackground: isPNG).paint()
        let name = String(format: "/avatars/user-%02d", userNumber)
        let file: SampleFile
        switch userNumber {
        case _ where isPNG:
            file = SampleFile(path: name + ".png", data: try ImageEncoder.png.encode(image), contentType: "image/png")
        case 3, 17:
            file = SampleFile(
                path: name + ".webp", data: try SampleAvatarFormats.webp(image), contentType: "image/webp")
        case 7:
            file = SampleFile(
                path: name + ".gif", data: try SampleAvatarFormats.animatedGIF(image), contentType: "image/gif"
            )
        default:
            file = SampleFile(
                path: name + ".jpg", data: try ImageEncoder.jpeg(quality: 85).encode(image), contentType: "image/jpeg"
            )
        }
        return SampleAvatar(userNumber: userNumber, side: side, file: file)
    }
}
