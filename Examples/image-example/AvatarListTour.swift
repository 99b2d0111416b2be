import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsImage

/// The run without inputs: the Navi article's contact list, scrolled a page at a time.
enum AvatarListTour {
    static func run(cacheDirectory: URL, output: URL) async throws {
        let media = try await SampleMedia.make(avatarCount: 40, videoByteCount: 0)
        let host = try SampleHost.start(media)
        defer { host.stop() }
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: cacheDirectory), loader: LocalFileLoader(), keyFactory: host.keyFactory)
        )
        let images = ImageUtil(manager: manager)
        let rows = AvatarList.rows(count: 200, userCount: 40)

        let pngCount = media.avatars.filter(\.isPNG).count
        let portraitBytes = media.avatars.reduce(0) { $0 + $1.file.data.count }
        print("image-example: a contact list through ImageUtil (storage .hybrid(.image))")
        print(
            "  origin     \(host.origin.baseURL.absoluteString)  "
                + "(embedded SampleOrigin, generated media, no network)")
        print("  cache      \(cacheDirectory.path)")
        print(
            "  portraits  \(media.avatars.count) users: \(media.avatars.count - pngCount) JPEG, \(pngCount) PNG with "
                + "transparency, 512 to 1024 px, \(Formatting.bytes(portraitBytes))")
        print(
            "  list       \(rows.count) rows; row i shows user i % 40 + 1 in style "
                + AvatarList.styles.map(\.name).joined(separator: ", ") + " by (i / 40) % 3")
        print("")

        print("Scrolling: 20 rows a page, the rows of a page asked for concurrently")
        var table = TextTable(header: ["page", "rows", "downloads", "renders", "memory hits", "disk hits", "time"])
        var before = images.statistics
        let clock = ContinuousClock()
        var pageStart = clock.now
        let loaded = try await AvatarList.scroll(rows, pageSize: 20) { row in
            try await images.image(for: host.url(for: media.avatars[row.userNumber - 1]), style: row.style)
        } pageDone: { page, range in
            let now = images.statistics
            table.add([
                String(page), "\(range.lowerBound + 1)-\(range.upperBound)",
                String(now.networkFetches - before.networkFetches), String(now.processes - before.processes),
                String(now.memoryHits - before.memoryHits), String(now.storageHits - before.storageHits),
                Formatting.duration(clock.now - pageStart),
            ])
            before = now
            pageStart = clock.now
        }
        table.print()
        let totals = images.statistics
        print(
            "  totals: \(totals.networkFetches) downloads, \(totals.decodes) decodes, \(totals.processes) renders, "
                + "\(totals.memoryHits) memory hits, \(totals.storageHits) disk hits, \(totals.failures) failures "
                + "(origin requests: \(host.requestCount))")
        print("")

        await manager.shutdown()  // stops prefetches, writes everything staged: nothing is lost at exit

        // Each user in each style once: rows 0..<120.
        let styled = Array(loaded.prefix(40 * AvatarList.styles.count))
        let order = rows.prefix(styled.count).indices.sorted {
            (rows[$0].userNumber, rows[$0].styleIndex) < (rows[$1].userNumber, rows[$1].styleIndex)
        }
        guard let sheet = ContactSheet.compose(order.map { styled[$0] }, columns: 12) else { return }
        try ExampleDirectories.write(try ImageEncoder.png.encode(sheet), to: output)
        print(
            "Contact sheet: \(styled.count) styled avatars (a user's three styles side by side), "
                + "\(sheet.width)x\(sheet.height) PNG")
        print("  written to \(output.path)")
        print("")
        await StatisticsReport.print(manager: manager, utils: [("ImageUtil", images.statistics.description)])
    }
}
