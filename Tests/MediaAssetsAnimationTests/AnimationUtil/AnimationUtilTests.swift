import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("AnimationUtil")
struct AnimationUtilTests {
    @Test func tenConcurrentAsksMakeOneRequestAndOneParse() async throws {
        // Given a gated animation, so all ten asks overlap
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/shapes.json", LottieFixtures.shapes, gated: true)

        // When ten tasks ask for it at once
        let animations = try await withThrowingTaskGroup(of: LottieDocument.self) { group in
            for _ in 0..<10 { group.addTask { try await environment.util.animation(for: url) } }
            try await environment.origin.waitForInFlight(path: "/shapes.json", count: 1)
            try await waitUntil("the other nine asks joined the load") { environment.util.pendingJoinCount == 9 }
            environment.origin.release("/shapes.json")
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then one request, one parse, and every asker has the same model
        #expect(animations.count == 10)
        #expect(Set(animations.map(\.layers.count)) == [2])
        #expect(environment.origin.requestCount(for: "/shapes.json") == 1)
        #expect(environment.util.statistics.decodes == 1)
        #expect(environment.util.statistics.networkFetches == 1)
    }

    @Test func memoryHitsParseNothingAndStorageHitsParseOnce() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/precomp.json", LottieFixtures.precompositions)

        // First ask downloads and parses; the next ones come from memory with no parse
        let first = try await environment.util.animation(for: url)
        for _ in 0..<5 { #expect(try await environment.util.animation(for: url) == first) }
        #expect(environment.util.statistics.decodes == 1)
        #expect(environment.util.statistics.memoryHits == 5)

        // After memory is trimmed, the bytes on disk are parsed once and kept in memory again
        await environment.manager.trimMemory()
        #expect(try await environment.util.animation(for: url) == first)
        #expect(try await environment.util.animation(for: url) == first)
        #expect(environment.util.statistics.decodes == 2)
        #expect(environment.util.statistics.storageHits == 1)
        #expect(environment.util.statistics.memoryHits == 6)
        #expect(environment.origin.requestCount(for: "/precomp.json") == 1)
    }

    @Test func memoryCostIsTheModelsEstimateNotAnItemCount() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/shapes.json", LottieFixtures.shapes)
        let animation = try await environment.util.animation(for: url)

        let memory = await environment.manager.statistics()[.lru(.lottie)]
        #expect(memory?.cost == animation.estimatedMemoryCost)
        #expect(animation.estimatedMemoryCost > animation.data.count)
    }

    @Test(arguments: [
        #"{"fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":["#,
        #"{"fr":0,"ip":0,"op":60,"w":100,"h":100,"layers":[]}"#,
        "not json at all",
    ])
    func invalidDownloadIsNeverPersisted(json: String) async throws {
        // Given an invalid animation at the origin
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/bad.json", json)

        // When it is asked for, a typed error comes back, naming the URL and keeping the parser's error
        let key = environment.manager.cacheKey(for: AssetRequest(url: url))
        let error = await #expect(throws: AnimationUtilError.self) { try await environment.util.animation(for: url) }
        guard case .undecodable(url, key, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }

        // Then nothing reached memory or disk, and the file counts as rejected
        #expect(try await environment.manager.readData(forKey: key, storageType: .disk) == nil)
        #expect(try await environment.manager.readData(forKey: key, storageType: .lru(.lottie)) == nil)
        #expect(environment.util.statistics.undecodable == 1)
    }

    @Test func corruptBytesInStorageAreRemovedAndReported() async throws {
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        let url = environment.origin.url(for: "/never-served.json")
        let key = environment.manager.cacheKey(for: AssetRequest(url: url))
        try await environment.manager.writeData(Data("{broken".utf8), forKey: key, storageType: .disk)

        await #expect(throws: AnimationUtilError.self) { try await environment.util.animation(for: url) }
        #expect(try await environment.manager.readData(forKey: key, storageType: .disk) == nil)
    }

    @Test func dotLottieArchivesAreParsedAndCached() async throws {
        // Given a dotLottie v2 archive with one animation and one image
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        var zip = TestZipWriter()
        zip.add("manifest.json", text: #"{"version":"2","animations":[{"id":"intro"}]}"#)
        zip.add("a/intro.json", text: LottieFixtures.shapes)
        zip.add("i/img_0.png", Data([0x89, 0x50, 0x4E, 0x47]))
        environment.origin.register("/intro.lottie", data: zip.archive(), contentType: "application/zip")
        let url = environment.origin.url(for: "/intro.lottie")

        let archive = try await environment.util.dotLottie(for: url)
        let again = try await environment.util.dotLottie(for: url)

        #expect(archive.animations.map(\.id) == ["intro"])
        #expect(archive.images.keys.sorted() == ["img_0.png"])
        #expect(again == archive)
        #expect(environment.util.statistics.decodes == 1)
        #expect(environment.util.statistics.memoryHits == 1)
    }

    @Test func theUtilsParsingLimitsApplyToAnimationsInsideArchives() async throws {
        // Given a util that accepts at most one layer, and an archive whose animation has more
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        var limits = LottieParsingOptions()
        limits.maximumLayerCount = 1
        let util = AnimationUtil(
            manager: environment.manager, configuration: .init(parsingOptions: limits), images: environment.images)
        var zip = TestZipWriter()
        zip.add("manifest.json", text: #"{"version":"2","animations":[{"id":"intro"}]}"#)
        zip.add("a/intro.json", text: LottieFixtures.shapes)
        environment.origin.register("/layers.lottie", data: zip.archive(), contentType: "application/zip")
        let url = environment.origin.url(for: "/layers.lottie")
        #expect(try LottieFixtures.parse(LottieFixtures.shapes).layerCount > 1)

        // When / Then: the archive is refused by the util's own limit, as a JSON animation would be
        await #expect(throws: AnimationUtilError.self) { try await util.dotLottie(for: url) }
        #expect(try DotLottie.read(zip.archive()).animations.count == 1)
        #expect(throws: DotLottieError.self) { try DotLottie.read(zip.archive(), parsing: limits) }
    }

    @Test func aBrokenArchiveIsATypedErrorNamingItsURLAndKey() async throws {
        // Given bytes that are not a zip archive
        let environment = try AnimationEnvironment()
        defer { environment.tearDown() }
        environment.origin.register("/broken.lottie", data: Data("not a zip".utf8), contentType: "application/zip")
        let url = environment.origin.url(for: "/broken.lottie")
        let key = environment.manager.cacheKey(for: AssetRequest(url: url))

        // When / Then: the reader's error, with the URL and key, and nothing stored
        let error = await #expect(throws: AnimationUtilError.self) { try await environment.util.dotLottie(for: url) }
        guard case .undecodableArchive(url, key, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(try await environment.manager.readData(forKey: key, storageType: .disk) == nil)
    }
}
