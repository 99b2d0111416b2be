import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage

/// The avatar list: 200 rows, 40 users, 3 styles, through ImageUtil.
enum DemoImages {
    /// Returns each user's avatar in each style, with the row it came from.
    static func run(phase: DemoPhase, media: SampleMedia) async throws -> [(row: AvatarListRow, image: Image)] {
        let images = phase.images
        let host = phase.host
        let rows = AvatarList.rows(count: 200, userCount: media.avatars.count)
        let before = images.statistics
        let (loaded, lines) = try await phase.measure {
            try await AvatarList.scroll(rows, pageSize: 20) { row in
                try await images.image(for: host.url(for: media.avatars[row.userNumber - 1]), style: row.style)
            }
        }
        let after = images.statistics
        let pixelBytes = loaded.reduce(0) { $0 + $1.cost }
        DemoPhase.report(
            "Images  (ImageUtil, .hybrid(.image))",
            [
                (
                    "asked",
                    "\(rows.count) list rows: \(media.avatars.count) users x \(AvatarList.styles.count) styles, "
                        + "20 rows a page, each page concurrently"
                ),
                (
                    "from",
                    "network \(after.networkFetches - before.networkFetches), "
                        + "disk \(after.storageHits - before.storageHits), "
                        + "memory \(after.memoryHits - before.memoryHits)  "
                        + "(decodes \(after.decodes - before.decodes), renders \(after.processes - before.processes))"
                ),
                ("served", "\(loaded.count) images, \(Formatting.bytes(pixelBytes)) of pixels"),
            ] + lines)
        let distinct = media.avatars.count * AvatarList.styles.count
        return Array(zip(rows.prefix(distinct), loaded.prefix(distinct))).map { (row: $0.0, image: $0.1) }
    }
}
