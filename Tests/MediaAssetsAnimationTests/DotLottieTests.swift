import Foundation
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("dotLottie archives", .offThePool)
struct DotLottieTests {
    /// A PNG-looking payload; the reader never decodes images.
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<200).map { UInt8($0) })

    private func animationJSON(directory: String) -> String {
        LottieFixtures.minimal(
            layers: #"[{"ty":2,"ind":1,"refId":"image_0"},{"ty":2,"ind":2,"refId":"image_1"}]"#,
            assets: #"""
                [{"id":"image_0","w":8,"h":8,"u":"\#(directory)","p":"img_0.png","e":0},
                 {"p":"missing.png","id":"image_1","u":"\#(directory)"}]
                """#
        )
    }

    private func readError(_ data: Data, options: DotLottieReadingOptions = .init()) -> DotLottieError? {
        do {
            _ = try DotLottie.read(data, options: options)
            return nil
        } catch {
            return error as? DotLottieError
        }
    }

    @Test("a v1 archive round-trips: manifest, animations and images")
    func versionOne() throws {
        // Given
        var writer = TestZipWriter()
        writer.add(
            "manifest.json",
            text: #"{"version":"1.0","generator":"tests","author":"me","activeAnimationId":"hello","#
                + #""animations":[{"id":"hello","speed":1,"loop":true},{"id":"shapes"}]}"#,
            method: .stored
        )
        writer.add("animations/", Data(), method: .stored)
        writer.add("animations/hello.json", text: animationJSON(directory: "/images/"))
        writer.add("animations/shapes.json", text: LottieFixtures.shapes)
        writer.add("images/img_0.png", png, method: .stored)

        // When
        let dotLottie = try DotLottie.read(writer.archive())

        // Then
        #expect(
            dotLottie.manifest
                == DotLottieManifest(
                    version: "1.0", generator: "tests", author: "me",
                    animations: [.init(id: "hello"), .init(id: "shapes")], initialAnimationID: "hello"
                ))
        #expect(dotLottie.manifest.isVersion2 == false)
        #expect(dotLottie.animations.map(\.id) == ["hello", "shapes"])
        #expect(dotLottie.animation(withID: "shapes") == (try LottieFixtures.parse(LottieFixtures.shapes)))
        #expect(dotLottie.initialAnimation?.imageAssets.count == 2)
        #expect(dotLottie.images == ["img_0.png": png])
    }

    @Test("a v2 archive uses a/ and i/ and its initial animation")
    func versionTwo() throws {
        // Given
        var writer = TestZipWriter()
        writer.add(
            "manifest.json",
            text: #"{"version":"2","generator":"tests","animations":[{"id":"first"},{"id":"second"}],"#
                + #""initial":{"animation":"second"},"themes":[{"id":"dark"}]}"#
        )
        writer.add("a/first.json", text: LottieFixtures.shapes)
        writer.add("a/second.json", text: animationJSON(directory: "/i/"))
        writer.add("i/img_0.png", png)
        writer.add("t/dark.json", text: "{}")

        // When
        let dotLottie = try DotLottie.read(writer.archive())

        // Then
        #expect(dotLottie.manifest.isVersion2)
        #expect(dotLottie.manifest.animationsDirectory == "a/")
        #expect(dotLottie.animations.map(\.id) == ["first", "second"])
        #expect(dotLottie.initialAnimation == dotLottie.animation(withID: "second"))
        #expect(dotLottie.images == ["img_0.png": png])
    }

    @Test("inlining embeds archive images as data URLs and leaves the others")
    func inlining() throws {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"version":"2","animations":[{"id":"main"}]}"#)
        writer.add("a/main.json", text: animationJSON(directory: "/i/"))
        writer.add("i/img_0.png", png)
        writer.add("i/missing2.png", png)
        let dotLottie = try DotLottie.read(writer.archive())

        // When
        let inlined = try #require(try dotLottie.inlinedAnimation(withID: "main"))

        // Then
        let images = inlined.imageAssets
        #expect(images.map(\.id) == ["image_0", "image_1"])
        #expect(images[0].isEmbedded)
        #expect(images[0].directory == "")
        #expect(images[0].embeddedMediaType == "image/png")
        #expect(images[0].embeddedData() == png)
        #expect(images[1] == LottieImageAsset(id: "image_1", directory: "/i/", path: "missing.png"))
        #expect(inlined.layers == dotLottie.animation(withID: "main")?.layers)
        #expect(try dotLottie.inlinedAnimation(withID: "nope") == nil)
    }

    @Test("an honest entry with a bomb-like compression ratio is refused before inflating")
    func compressionRatioBomb() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add("images/zeros.png", Data(count: 8 * 1024 * 1024))

        // When
        let error = readError(writer.archive())

        // Then
        guard case let .compressionRatioExceeded(entry, ratio, 200)? = error else {
            Issue.record("expected compressionRatioExceeded, got \(String(describing: error))")
            return
        }
        #expect(entry == "images/zeros.png")
        #expect(ratio > 200)
    }

    @Test("entries declaring more than the total uncompressed limit are refused")
    func declaredTotalBomb() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        let tiny = Data(count: 1024)
        writer.add(
            .init(
                name: "images/huge.png", contents: tiny, declaredUncompressedSize: 300 * 1024 * 1024,
                compressedOverride: TestZipWriter.deflate(tiny) + Data(count: 2 * 1024 * 1024)
            ))

        // When
        let error = readError(writer.archive())

        // Then
        guard case .uncompressedSizeLimitExceeded(_, 256 * 1024 * 1024)? = error else {
            Issue.record("expected uncompressedSizeLimitExceeded, got \(String(describing: error))")
            return
        }
    }

    @Test("an entry that inflates past its declared size is stopped at the declared size")
    func lyingSize() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add(
            .init(
                name: "images/liar.png", contents: Data(count: 4 * 1024 * 1024), declaredUncompressedSize: 1000
            ))

        // When
        let error = readError(writer.archive())

        // Then
        #expect(error == .sizeMismatch(entry: "images/liar.png", declared: 1000, actual: 1001))
    }

    @Test("an entry shorter than declared is refused")
    func shortEntry() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add(.init(name: "images/short.png", contents: png, declaredUncompressedSize: png.count + 5))

        // When / Then
        #expect(
            readError(writer.archive())
                == .sizeMismatch(
                    entry: "images/short.png", declared: png.count + 5, actual: png.count
                ))
    }

    @Test(
        "paths that could escape the archive are refused",
        arguments: [
            "../evil.json", "images/../../evil.png", "/etc/passwd", "images\\evil.png", "C:/evil.png", "a/..", "",
        ])
    func pathEscape(name: String) {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add(name, png, method: .stored)

        // When / Then
        #expect(readError(writer.archive()) == .unsafePath(entry: name))
    }

    @Test("a corrupt CRC-32 is refused")
    func corruptChecksum() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add(.init(name: "images/a.png", contents: png, declaredCRC: 0xDEAD_BEEF))

        // When
        let error = readError(writer.archive())

        // Then
        #expect(
            error
                == .checksumMismatch(
                    entry: "images/a.png", expected: 0xDEAD_BEEF, actual: TestZipWriter.crc32(png)
                ))
    }

    @Test("corrupt deflate data, unknown methods and duplicates are refused")
    func corruptEntries() {
        // Given
        var garbage = TestZipWriter()
        garbage.add("manifest.json", text: #"{"animations":[]}"#)
        garbage.add(.init(name: "images/a.png", contents: png, compressedOverride: Data(repeating: 0xFF, count: 64)))
        var bzip = TestZipWriter()
        bzip.add(.init(name: "manifest.json", contents: png, method: .stored, declaredMethod: 12))
        var duplicate = TestZipWriter()
        duplicate.add("manifest.json", text: #"{"animations":[]}"#)
        duplicate.add("manifest.json", text: #"{"animations":[]}"#)

        // When / Then
        guard case .corruptEntry("images/a.png", _)? = readError(garbage.archive()) else {
            Issue.record("garbage deflate data should be a corrupt entry")
            return
        }
        #expect(readError(bzip.archive()) == .unsupportedCompression(entry: "manifest.json", method: 12))
        #expect(readError(duplicate.archive()) == .duplicateEntry("manifest.json"))
    }

    @Test("manifest and animation problems are typed")
    func contentErrors() {
        // Given
        var noManifest = TestZipWriter()
        noManifest.add("animations/a.json", text: LottieFixtures.shapes)
        var missingAnimation = TestZipWriter()
        missingAnimation.add("manifest.json", text: #"{"animations":[{"id":"ghost"}]}"#)
        var badManifest = TestZipWriter()
        badManifest.add("manifest.json", text: #"{"animations":[{"speed":1}]}"#)
        var badAnimation = TestZipWriter()
        badAnimation.add("manifest.json", text: #"{"animations":[{"id":"bad"}]}"#)
        badAnimation.add("animations/bad.json", text: #"{"fr":0,"ip":0,"op":1,"w":1,"h":1,"layers":[]}"#)

        // When / Then
        #expect(readError(noManifest.archive()) == .missingManifest)
        #expect(readError(missingAnimation.archive()) == .missingAnimation(id: "ghost"))
        #expect(
            readError(badManifest.archive())
                == .invalidManifest(
                    .invalid(
                        path: "$.animations[0].id", reason: "missing required key (the animation identifier)"
                    )))
        guard case .invalidAnimation("bad", .invalid("$.fr", _))? = readError(badAnimation.archive()) else {
            Issue.record("an invalid animation should name its id and path")
            return
        }
    }

    @Test("archive-level limits: size and entry count")
    func archiveLimits() {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[]}"#)
        writer.add("images/a.png", png)
        writer.add("images/b.png", png)
        let archive = writer.archive()

        // When / Then
        #expect(readError(archive, options: .init(maximumEntryCount: 2)) == .tooManyEntries(count: 3, limit: 2))
        #expect(
            readError(archive, options: .init(maximumArchiveSize: 10))
                == .archiveTooLarge(
                    size: archive.count, limit: 10
                ))
    }

    @Test("non-zip bytes and every truncation of an archive throw, never crash")
    func truncatedArchives() throws {
        // Given
        var writer = TestZipWriter()
        writer.add("manifest.json", text: #"{"animations":[{"id":"s"}]}"#)
        writer.add("animations/s.json", text: LottieFixtures.shapes)
        let archive = writer.archive()
        _ = try DotLottie.read(archive)

        // When
        var unthrown: [Int] = []
        for length in 0..<archive.count where readError(archive.prefix(length)) == nil {
            unthrown.append(length)
        }

        // Then
        #expect(unthrown.isEmpty)
        #expect(readError(Data("not a zip at all, just some text of moderate length".utf8)) == .notAZipArchive)
    }
}
