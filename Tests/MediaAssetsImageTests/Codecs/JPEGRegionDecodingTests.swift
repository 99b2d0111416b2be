import CJPEG
import Foundation
import Synchronization
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssetsImage

@Suite("JPEG decoding with headroom and a region of interest", .offThePool)
struct JPEGRegionDecodingTests {
    @Test(
        "the DCT scale leaves at least 2× the target in the region, when the file is that large",
        arguments: [
            (target: PixelSize.square(96), region: nil, expected: PixelSize(width: 500, height: 250)),
            (target: .square(96), region: ImageRegion.centered(aspectRatio: .square(1)), expected: .square(250)),
            (
                target: .square(40), region: .centered(aspectRatio: .square(1)),
                expected: PixelSize(width: 126, height: 125)
            ),
            (target: PixelSize(width: 300, height: 100), region: nil, expected: PixelSize(width: 750, height: 375)),
            (target: .square(600), region: .centered(aspectRatio: .square(1)), expected: .square(1000)),
        ])
    func headroom(case scaling: (target: PixelSize, region: ImageRegion?, expected: PixelSize)) throws {
        // Given a 2000×1000 JPEG
        let data = try JPEGDecodingTests.largeGrayJPEG()

        // When it is decoded toward a target (default headroom 2)
        let options = ImageDecodingOptions(targetSize: scaling.target, regionOfInterest: scaling.region)
        let image = try ImageDecoder.decode(data, options: options)

        // Then the smallest n/8 scale whose region is twice the target (or the full size) is chosen
        #expect(PixelSize(width: image.width, height: image.height) == scaling.expected)
        let fullSize = scaling.expected.height == 1000
        #expect(fullSize || (image.width >= 2 * scaling.target.width && image.height >= 2 * scaling.target.height))
    }

    @Test("headroom 1 keeps the draft rule: the smallest scale that covers the target")
    func headroomOne() throws {
        // Given
        let data = try JPEGDecodingTests.largeGrayJPEG()

        // When
        let options = ImageDecodingOptions(targetSize: .square(96), downsamplingHeadroom: 1)
        let image = try ImageDecoder.decode(data, options: options)

        // Then 1/8 already covers 96×96
        #expect(image.width == 250 && image.height == 125)
    }

    @Test(
        "a region decode equals the same region of a whole decode",
        arguments: [
            (scale: nil, region: ImageRegion.centered(aspectRatio: .square(1))),
            (scale: PixelSize.square(48), region: .centered(aspectRatio: .square(1))),
            (scale: nil, region: .relative(x: 0.55, y: 0.3, width: 0.3, height: 0.45)),
            (scale: PixelSize.square(30), region: .relative(x: 0.1, y: 0.6, width: 0.5, height: 0.4)),
        ])
    func regionMatchesWholeDecode(case crop: (scale: PixelSize?, region: ImageRegion)) throws {
        // Given a detailed 4:3 photo-like JPEG (4:2:0 chroma)
        let data = try Self.detailedJPEG(width: 320, height: 240)

        // When the region is decoded, and the whole image at the same scale
        let region = try ImageDecoder.decode(
            data, options: ImageDecodingOptions(targetSize: crop.scale, regionOfInterest: crop.region)
        )
        let whole = try Self.wholeDecode(data, width: 320, height: 240, showing: crop.region, as: region)

        // Then the region holds the same pixels (libjpeg may upsample chroma differently at the crop's edge)
        let rect = crop.region.rect(in: PixelSize(width: whole.width, height: whole.height))
        #expect(region.width == rect.width && region.height == rect.height)
        let expected = whole.cropped(to: rect)
        #expect(CodecFixtures.difference(region.pixels, expected.pixels).mean < 0.5)
        #expect(Self.psnr(region, expected) > 40)
    }

    @Test("EXIF orientation is applied to the region in upright coordinates", arguments: 1...8)
    func orientationWithRegion(orientation: Int) throws {
        // Given a detailed 64×48 JPEG tagged with the orientation
        let data = try Self.detailedJPEG(
            width: 64, height: 48, app1: CodecFixtures.exifPayload(orientation: orientation, bigEndian: false)
        )
        let region = ImageRegion.relative(x: 0.5, y: 0, width: 0.5, height: 0.75)

        // When the upright top-right region is decoded, and the whole upright image
        let cropped = try ImageDecoder.decode(data, options: ImageDecodingOptions(regionOfInterest: region))
        let whole = try ImageDecoder.decode(data)

        // Then the region is the same part of the upright image
        let rect = region.rect(in: PixelSize(width: whole.width, height: whole.height))
        let expected = whole.cropped(to: rect)
        #expect(cropped.width == expected.width && cropped.height == expected.height)
        #expect(CodecFixtures.difference(cropped.pixels, expected.pixels).mean < 1)
    }

    @Test("a file cut anywhere, also below the region, fails as truncated", arguments: [0.3, 0.6, 0.9, 0.99])
    func truncatedUnderRegion(fraction: Double) throws {
        // Given a JPEG cut short
        let data = try Self.detailedJPEG(width: 320, height: 240)
        let cut = data.prefix(Int(Double(data.count) * fraction))
        let top = ImageRegion.relative(x: 0.25, y: 0, width: 0.5, height: 0.2)

        // When only its top band is wanted, scaled or not
        for options in [
            ImageDecodingOptions(regionOfInterest: top),
            ImageDecodingOptions(targetSize: .square(16), regionOfInterest: .centered(aspectRatio: .square(1))),
        ] {
            // Then the decode still reports the cut, never a partial image
            #expect {
                try ImageDecoder.decode(Data(cut), options: options)
            } throws: { error in
                guard case .truncated(format: .jpeg, _) = error as? ImageError else { return false }
                return true
            }
        }
    }

    @Test("corrupt files under a region are typed errors; progressive and CMYK files decode their region")
    func corruptAndVariants() throws {
        // Given mutations of a progressive and a CMYK file
        let rgb = CodecFixtures.smoothRGB(width: 96, height: 64)
        let progressive = try CodecFixtures.jpeg(rgb, width: 96, height: 64, progressive: true)
        let cmyk = try CodecFixtures.jpeg(
            [UInt8](repeating: 40, count: 96 * 64 * 4), width: 96, height: 64, input: CJPEG_INPUT_CMYK
        )
        let options = ImageDecodingOptions(targetSize: .square(8), regionOfInterest: .centered(aspectRatio: .square(1)))

        // When they are decoded with a region
        let progressiveImage = try ImageDecoder.decode(progressive, options: options)
        let cmykImage = try ImageDecoder.decode(cmyk, options: options)
        var garbled = progressive
        let lastScan = try #require(Self.lastStartOfScan(in: garbled))
        garbled[lastScan + 5] = 9  // a component the frame does not have

        // Then
        #expect(progressiveImage.width == progressiveImage.height)
        #expect(cmykImage.width == cmykImage.height)
        #expect {
            try ImageDecoder.decode(garbled, options: options)
        } throws: { error in
            guard case .corrupt(format: .jpeg, _) = error as? ImageError else { return false }
            return true
        }
    }

    /// The offset of the last SOS marker (`FF DA`); its first component selector is 5 bytes on.
    static func lastStartOfScan(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        return (0..<(bytes.count - 6)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
    }

    @Test("fuzzJPEGRegionDecoder survives seeded mutations")
    func fuzzRegions() throws {
        let seeds = [
            try Self.detailedJPEG(width: 48, height: 32),
            try Self.detailedJPEG(
                width: 40, height: 56, app1: CodecFixtures.exifPayload(orientation: 6, bigEndian: true)),
            try CodecFixtures.jpeg(
                CodecFixtures.smoothRGB(width: 33, height: 17), width: 33, height: 17, progressive: true),
        ]
        CodecFuzzingTests.run(fuzzJPEGRegionDecoder, seeds: seeds, iterations: 1500, seed: 16)
    }

    @Test(
        "rows below a region that ends inside a row group are drained, not looped on (libjpeg-turbo issue #915)"
    )
    func drainFromInsideRowGroup() throws {
        // Given the fuzzer's progressive 64×48 file whose components are sampled 2×2, 1×1 and 1×4
        let data = try #require(Data(base64Encoded: Self.skipLoopJPEG))

        // When the top 5 rows of its 2/8-scale output (16×12) are decoded, on a thread this test can give up on
        let top = PixelRect(x: 0, y: 0, width: 16, height: 5)
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<(region: [UInt8], whole: [UInt8]), any Error>?>(nil)
        Thread.detachNewThread {
            let decoded = Result {
                (region: try Self.decodeScaled(data, rect: top), whole: try Self.decodeScaled(data))
            }
            result.withLock { $0 = decoded }
            done.signal()
        }

        // Then it ends (libjpeg-turbo 2.1.5 looped forever skipping the 7 rows below from row 5), with the rows
        // a whole decode gives
        try #require(done.wait(timeout: .now() + 60) == .success, "the region decode did not end within 60 s")
        let decoded = try #require(result.withLock { $0 }).get()
        #expect(decoded.region == Array(decoded.whole.prefix(16 * 4 * 5)))
    }

    /// `rect` (the whole output when nil) of the file decoded at 2/8 scale, through the C decoder directly.
    static func decodeScaled(_ data: Data, rect: PixelRect? = nil) throws -> [UInt8] {
        try data.withUnsafeBytes { bytes in
            let decoder = try JPEGDecoderHandle(bytes)
            defer { decoder.close() }
            _ = try decoder.readHeader()
            let size = try decoder.start(scaleNumerator: 2)
            let rect = rect ?? PixelRect(x: 0, y: 0, width: size.width, height: size.height)
            var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
            try pixels.withUnsafeMutableBytes { try decoder.read(rect, into: $0) }
            return pixels
        }
    }

    /// Fuzz/Regressions/jpeg/timeout-2a32fece…: libFuzzer's input that made jpeg_skip_scanlines loop.
    static let skipLoopJPEG = """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYAAAABhYaHSUfGhsjHBYWICwgIyYn\
        KSopGR8tMC0oMCUoKSj/2wBDAQcHBwoTIgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/wAEWk2MtULEcTYz/8QAFBAB\
        AAAAAAgKEwoKEygaFhooKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKP/CABEIADAAQAMB\
        IgACEQEDFAH/xAAaAAACAwEBAAAAAAAAAAAAAAAEBQIDBgAB/8QAFBABAAAAAAAAAAAAAAAAAAAAUP/aAAgBAQAGPwJD/8QAGxAB\
        AQEBAAMBAAAAAAAAAAAAAQARIRAxQWH/2gAIAQEAAT8hOyHjRTI5CFkWT3Y7Xbv+wizDEM+3CdnsnUl83IyfitWTxVY69IMmeOX/2Q==
        """

    @Test("PNG and other decoders get the region cut out by the registry")
    func registryCutsRegion() throws {
        // Given a 40×20 PNG
        let png = try ImageEncoder.png(
            Image(
                width: 40, height: 20,
                pixels: CodecFixtures.rgba(
                    fromRGB: CodecFixtures.smoothRGB(width: 40, height: 20))))

        // When decoded with a centred square region
        let options = ImageDecodingOptions(regionOfInterest: .centered(aspectRatio: .square(1)))
        let image = try ImageDecoder.decode(png, options: options)
        let whole = try ImageDecoder.decode(png)

        // Then the centre 20×20 comes back
        #expect(image == whole.cropped(to: PixelRect(x: 10, y: 0, width: 20, height: 20)))
    }

    /// The whole image decoded at the DCT scale whose `region` has `decoded`'s size (headroom 1 picks it).
    static func wholeDecode(
        _ data: Data, width: Int, height: Int, showing region: ImageRegion, as decoded: Image
    ) throws -> Image {
        for numerator in 1...8 {
            let size = PixelSize(width: (width * numerator + 7) / 8, height: (height * numerator + 7) / 8)
            guard region.rect(in: size).size == PixelSize(width: decoded.width, height: decoded.height) else {
                continue
            }
            return try ImageDecoder.decode(
                data, options: ImageDecodingOptions(targetSize: size, downsamplingHeadroom: 1))
        }
        throw ImageError.invalidDimensions(format: .jpeg, width: decoded.width, height: decoded.height)
    }

    /// A 4:3 picture with hard-edged detail in every block, so a misplaced region shows.
    static func detailedJPEG(width: Int, height: Int, app1: [UInt8]? = nil) throws -> Data {
        var rgb = CodecFixtures.smoothRGB(width: width, height: height)
        var generator = SeededGenerator(seed: UInt64(width * 1000 + height))
        for offset in stride(from: 0, to: rgb.count, by: 3) where generator.next() % 5 == 0 {
            rgb[offset + Int(generator.next() % 3)] = UInt8(truncatingIfNeeded: generator.next())
        }
        return try CodecFixtures.jpeg(rgb, width: width, height: height, quality: 92, app1: app1)
    }

    static func psnr(_ image: Image, _ reference: Image) -> Double {
        var squaredError = 0.0
        for (lhs, rhs) in zip(image.pixels, reference.pixels) {
            squaredError += (Double(lhs) - Double(rhs)) * (Double(lhs) - Double(rhs))
        }
        let meanSquaredError = max(squaredError / Double(image.pixels.count), 1e-10)
        return 10 * log10(255 * 255 / meanSquaredError)
    }
}
