import Foundation
import MediaAssets
import MediaAssetsImage
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("AnimationUtil: self-contained .lottie export")
struct AnimationExportTests {
    /// The pinned python-lottie of `.ci/run` (`pip install lottie==0.7.2`).
    static let pythonLottieAvailable: Bool = {
        let python = ["python3", "-c", "import lottie.importers.dot_lottie"]
        return (try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), python))?.status == 0
    }()

    /// An origin serving an animation with two external PNGs and one embedded image.
    private func exported(
        layout: DotLottie.Layout = .version1
    ) async throws -> (archive: Data, served: [String: Data], requests: Int, environment: OriginEnvironment) {
        let environment = try OriginEnvironment()
        let served = ["one": AssetFixtures.png(red: 11), "two": AssetFixtures.png(width: 3, height: 3, red: 22)]
        for (name, data) in served { environment.serve("/e/images/\(name).png", data, contentType: "image/png") }
        let json = AssetFixtures.animation(images: [
            .external("one", "one.png"), .embedded("inline", AssetFixtures.png(width: 2, height: 2)),
            .external("two", "two.png"),
        ])
        let url = environment.serve("/e/hello world.json", Data(json.utf8), contentType: "application/json")
        let util = AnimationUtil(manager: environment.manager)
        let archive = try await util.exportDotLottie(for: url, layout: layout)
        return (archive, served, environment.origin.totalRequestCount, environment)
    }

    @Test(arguments: [DotLottie.Layout.version1, .version2])
    func theArchiveIsSelfContainedAndReadsBack(layout: DotLottie.Layout) async throws {
        // Given an exported animation
        let (archive, served, requests, environment) = try await exported(layout: layout)
        defer { environment.tearDown() }

        // When our reader reads it
        let dotLottie = try DotLottie.read(archive)

        // Then it holds one animation whose images are all embedded, the external ones as their original bytes
        #expect(dotLottie.manifest.isVersion2 == (layout == .version2))
        #expect(dotLottie.animations.map(\.id) == ["hello_world"])
        let animation = try #require(dotLottie.initialAnimation)
        #expect(animation.imageAssets.allSatisfy { $0.isEmbedded })
        #expect(animation.externalImageURLs(relativeTo: URL(fileURLWithPath: "/")).isEmpty)
        let byID = Dictionary(uniqueKeysWithValues: animation.imageAssets.map { ($0.id, $0) })
        #expect(byID["one"]?.embeddedData() == served["one"])
        #expect(byID["two"]?.embeddedData() == served["two"])
        #expect(byID["one"]?.embeddedMediaType == "image/png")
        #expect(byID["inline"]?.embeddedData() == AssetFixtures.png(width: 2, height: 2))
        // And exporting read the images back from the cache: one request per file
        #expect(requests == 3)
        // And the archive loads with its assets with no network at all
        let offline = try OriginEnvironment()
        defer { offline.tearDown() }
        let url = offline.serve("/offline.json", animation.data, contentType: "application/json")
        let loaded = try await AnimationUtil(manager: offline.manager).loadedAnimation(for: url)
        #expect(loaded.image(forAssetID: "two")?.width == 3)
        #expect(offline.origin.totalRequestCount == 1)
    }

    @Test func placeholdersAreExportedAsPNG() async throws {
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let json = AssetFixtures.animation(images: [.external("gone", "gone.png")])
        let url = environment.serve("/g.json", Data(json.utf8), contentType: "application/json")
        let util = AnimationUtil(manager: environment.manager)

        let archive = try await util.exportDotLottie(
            for: url, options: AnimationAssetOptions(failurePolicy: .placeholder(maximumSide: 16))
        )

        let asset = try #require(try DotLottie.read(archive).initialAnimation?.imageAssets.first)
        let image = try ImageCodecRegistry.standard.decode(try #require(asset.embeddedData()))
        #expect(image.width == 8 && image.height == 6)
    }

    @Test(.enabled(if: pythonLottieAvailable, "install python-lottie: pip install lottie==0.7.2"))
    func pythonLottieReadsTheArchive() async throws {
        // Given an archive on disk
        let (archive, _, _, environment) = try await exported()
        defer { environment.tearDown() }
        let file = environment.directory.url.appendingPathComponent("export.lottie")
        try archive.write(to: file)

        // When python-lottie imports it
        let script = """
            import sys
            from lottie.importers.dot_lottie import import_dotlottie
            from lottie.objects import assets
            animation = import_dotlottie(sys.argv[1])
            images = [a for a in animation.assets if isinstance(a, assets.Image)]
            print(len(animation.layers), len(images), sum(1 for a in images if a.is_embedded), animation.width)
            """
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let python = try await ChildProcess.run(env, ["python3", "-c", script, file.path])

        // Then it sees three layers and three embedded images
        #expect(python.status == 0, "\(python.output)")
        // (the printed line is the last one; a warning python writes to standard error comes before it)
        let printed = python.output.split(separator: "\n").last { !$0.isEmpty }
        #expect(printed == "3 3 3 64", "\(python.output)")
    }
}
