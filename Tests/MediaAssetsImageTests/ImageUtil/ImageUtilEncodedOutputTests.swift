import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil encoded output: stored bytes served without decoding, the format in the key")
struct ImageUtilEncodedOutputTests {
    @Test("a cold ask makes and stores the variant; the next is served from its stored bytes, not decoded")
    func storedVariantIsServedAsItIs() async throws {
        // Given a photo at the origin
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)

        // When its circle is asked for as bytes twice
        let first = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)
        let decodesAfterFirst = harness.util.statistics.decodes
        let second = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)

        // Then the first made it (PNG, for the circle's transparent corners) and the second read the same bytes,
        // which the first kept in the memory tier of `.hybrid(.image)`
        #expect(first.source == .network && second.source == .memory)
        #expect(first.format == .png && first.contentType == "image/png")
        #expect(second.data == first.data && second.entityTag == first.entityTag)
        #expect(first.entityTag == EntityTag.strong(hashing: first.data))
        #expect(harness.util.statistics.decodes == decodesAfterFirst)
        #expect(harness.util.pipeline.statistics.encodedHits == 1)
        #expect(try ImageDecoder.decode(second.data).width == 96)

        // And the validator answers If-None-Match
        #expect(second.isNotModified(ifNoneMatch: first.entityTag.description))
        #expect(second.isNotModified(ifNoneMatch: "W/" + first.entityTag.description))
        #expect(!second.isNotModified(ifNoneMatch: "\"0000000000000000\""))
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("the bytes served are the variant image(for:style:) stored, under the same key")
    func encodedAndDecodedAsksShareTheVariant() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/shared.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        let image = try await harness.util.image(for: request, style: ImageUtilFixtures.rectangle)
        await harness.manager.waitForPendingWrites()
        let renders = harness.util.statistics.processes

        let encoded = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.rectangle)

        #expect(encoded.source == .storage && encoded.format == .jpeg)
        #expect(harness.util.statistics.processes == renders)
        let key = harness.util.cacheKey(for: request, style: ImageUtilFixtures.rectangle)
        #expect(
            key
                == harness.util.cacheKey(
                    for: request, style: ImageUtilFixtures.rectangle, format: .automatic(jpegQuality: 85)))
        #expect(try await harness.manager.readData(forKey: key, storageType: .disk) == encoded.data)
        #expect(try ImageDecoder.decode(encoded.data).width == image.width)
    }

    @Test("two utils with different output formats on one manager each get their own format")
    func twoUtilsKeepTheirOwnFormats() async throws {
        // Given a PNG util and a JPEG util over one manager
        let harness = try ImageUtilHarness(configuration: .init(variantFormat: .png))
        defer { harness.tearDown() }
        let jpegUtil = ImageUtil(manager: harness.manager, configuration: .init(variantFormat: .jpeg(quality: 80)))
        let url = harness.serve("/both.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        let style = ImageUtilFixtures.rectangle

        // When each asks for the same style, then each again after the other stored its variant
        let png = try await harness.util.encodedImage(for: request, style: style)
        let jpeg = try await jpegUtil.encodedImage(for: request, style: style)
        await harness.manager.waitForPendingWrites()
        let pngAgain = try await harness.util.encodedImage(for: request, style: style)
        let jpegAgain = try await jpegUtil.encodedImage(for: request, style: style)
        _ = try await harness.util.image(for: request, style: style)

        // Then each got its own format, from its own stored variant, and the original was downloaded once
        #expect(png.format == .png && pngAgain.format == .png && pngAgain.data == png.data)
        #expect(jpeg.format == .jpeg && jpegAgain.format == .jpeg && jpegAgain.data == jpeg.data)
        // (each util kept the bytes it made in the memory tier of `.hybrid(.image)`)
        #expect(pngAgain.source == .memory && jpegAgain.source == .memory)
        let pngKey = harness.util.cacheKey(for: request, style: style)
        let jpegKey = jpegUtil.cacheKey(for: request, style: style)
        #expect(pngKey != jpegKey)
        #expect(
            ImageFormat.sniff(try #require(try await harness.manager.readData(forKey: pngKey, storageType: .disk)))
                == .png)
        #expect(
            ImageFormat.sniff(try #require(try await harness.manager.readData(forKey: jpegKey, storageType: .disk)))
                == .jpeg)
        #expect(harness.origin.requestCount(for: "/both.jpg") == 1)
    }

    @Test("an explicit format is its own variant: WebP beside the util's JPEG", .enabled(if: CodecAvailability.webp))
    func explicitFormat() async throws {
        // Decoded originals kept, so the second format of the style is rendered from the first one's decode
        let harness = try ImageUtilHarness(configuration: .init(pipeline: .init(decodedOriginals: .always)))
        defer { harness.tearDown() }
        let url = harness.serve("/webp.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)

        let webp = try await harness.util.encodedImage(
            for: request, style: ImageUtilFixtures.circle, format: .webp(quality: 80))
        let automatic = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)

        #expect(webp.format == .webp && webp.contentType == "image/webp")
        #expect(automatic.format == .png)
        #expect(webp.entityTag != automatic.entityTag)
        let key = harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle, format: .webp(quality: 80))
        #expect(key.rawValue.hasSuffix("@circle(96)@webp-q80"))
        #expect(harness.util.statistics.decodes == 1)
    }

    @Test("from .disk the stored bytes are served without decoding; from .lru(.image) the image in memory is encoded")
    func byteAndMemoryStorage() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/storages.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        let style = ImageUtilFixtures.rectangle

        _ = try await harness.util.encodedImage(for: request, style: style, storageType: .disk)
        let fromDisk = try await harness.util.encodedImage(for: request, style: style, storageType: .disk)
        #expect(fromDisk.source == .storage)
        #expect(harness.util.statistics.decodes == 1)

        let made = try await harness.util.encodedImage(for: request, style: style, storageType: .lru(.image))
        let fromMemory = try await harness.util.encodedImage(for: request, style: style, storageType: .lru(.image))
        #expect(made.format == .jpeg && fromMemory.format == .jpeg)
        #expect(fromMemory.source == .memory)
        #expect(fromMemory.data == made.data && fromMemory.entityTag == made.entityTag)
    }

    @Test(
        "AVIF where libheif has an AV1 encoder, else the typed error naming why", .enabled(if: CodecAvailability.heif))
    func avif() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avif.jpg", try ImageUtilFixtures.gradientJPEG())
        let request = AssetRequest(url: url)
        guard AVIFEncoder.isAvailable else {
            await #expect(throws: ImageError.self) {
                try await harness.util.encodedImage(
                    for: request, style: ImageUtilFixtures.circle, format: .avif(quality: 60))
            }
            return
        }
        let avif = try await harness.util.encodedImage(
            for: request, style: ImageUtilFixtures.circle, format: .avif(quality: 60))
        #expect(avif.format == .avif && avif.contentType == "image/avif")
        let decoded = try ImageDecoder.decode(avif.data)
        #expect(decoded.width == 96 && decoded.height == 96)
        #expect(decoded[0, 0].alpha <= 8, "the circle's corners stay transparent (AV1 codes alpha lossily)")
        #expect(decoded[48, 48].alpha >= 247)
    }

    @Test("through .hybrid the next asks for the bytes read memory, not the file, and the bitmap stays beside them")
    func encodedBytesAreKeptInMemory() async throws {
        // Given a circle made once as bytes, its write on disk
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/kept.jpg", try ImageUtilFixtures.gradientJPEG()))
        let made = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)
        // The write, and the placeholder that reads the original's file in the background, are done first.
        await harness.manager.shutdown()
        let disk = try #require(try harness.manager.backend(for: .disk) as? DiskCache)
        let fileReads = await disk.statistics().hits

        // When it is asked for as bytes twice more, then as an image
        let second = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)
        let third = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)
        let renders = harness.util.statistics.processes
        let shown = try await harness.util.imageResult(for: request, style: ImageUtilFixtures.circle)

        // Then the bytes came from memory (no file read), and the image from the bitmap memory kept beside them
        #expect(second.data == made.data && third.data == made.data && third.source == .memory)
        #expect(await disk.statistics().hits == fileReads)
        #expect(harness.util.pipeline.statistics.encodedHits == 2)
        #expect(shown.source == .memory && harness.util.statistics.processes == renders)
    }

    @Test("with encodedVariantsInMemory 0 every ask reads the file; a reopened cache reads it once, then memory")
    func encodedBytesInMemoryAreBounded() async throws {
        // Given a util that keeps no encoded bytes in memory, and a circle it made and stored
        let harness = try ImageUtilHarness(configuration: .init(pipeline: .init(encodedVariantsInMemory: 0)))
        defer { harness.tearDown() }
        let request = AssetRequest(url: harness.serve("/unkept.jpg", try ImageUtilFixtures.gradientJPEG()))
        _ = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle)
        // The write, and the placeholder that reads the original's file in the background, are done first.
        await harness.manager.shutdown()
        let disk = try #require(try harness.manager.backend(for: .disk) as? DiskCache)
        let before = await disk.statistics().hits

        // When it is asked for twice
        for _ in 0..<2 { _ = try await harness.util.encodedImage(for: request, style: ImageUtilFixtures.circle) }

        // Then each ask read the file
        #expect(await disk.statistics().hits == before + 2)

        // And after a restart with the default, the first ask reads the file and promotes it, the next does not
        let reopened = try await harness.reopened()
        let util = ImageUtil(manager: reopened.manager)
        let reopenedDisk = try #require(try reopened.manager.backend(for: .disk) as? DiskCache)
        for _ in 0..<3 { _ = try await util.encodedImage(for: request, style: ImageUtilFixtures.circle) }
        #expect(await reopenedDisk.statistics().hits == 1)
        #expect(util.pipeline.statistics.encodedHits == 3)
    }
}
