import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsSQLite

/// ImageUtil over SQLite: with SQLite registered for `.disk`, originals and styled avatars asked
/// for through `.hybrid(.image)` are stored in the database.
enum ImageUtilPart {
    static func run(manager: AssetsManager, sqlite: SQLiteBackend, host: SampleHost) async throws {
        print("3. ImageUtil over SQLite (.hybrid(.image) = memory in front of SQLite)")
        let images = ImageUtil(manager: manager)
        let avatar = host.media.avatars[1]
        let url = host.url(for: avatar)
        let before = await sqlite.statistics()
        let style = AvatarStyle.circle(diameter: 96, borderWidth: 2, borderColor: .white)
        let image = try await images.image(for: url, style: style)
        let after = await sqlite.statistics()
        print(
            "   images.image(for: \(url.lastPathComponent), style: .circle(diameter: 96, ...)): "
                + "\(image.width)x\(image.height)")
        print(
            "   SQLite entries \(before.count) -> \(after.count) (the original and its styled variant), "
                + "\(Formatting.bytes(after.bytes)) stored")
        print("   ImageUtil: \(images.statistics)")
    }
}
