import CDynamicCodecs
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// Small valid files of each run-time format, for truncation and mutation tests.
enum FormatSamples {
    static let image = Image(width: 6, height: 5, fill: RGBA(red: 40, green: 160, blue: 90, alpha: 200))

    static func webp() throws -> Data { try WebPFixtures.lossy(image) }

    static func animatedWebP() throws -> Data {
        try WebPFixtures.animated(
            canvas: .square(4),
            frames: [
                .init(image: Image(width: 4, height: 4, fill: .white)),
                .init(image: Image(width: 2, height: 2, fill: .black)),
            ]
        )
    }

    static func gif() throws -> Data { try GIFDecodingTests.disposalSequence() }

    static func heic() throws -> Data { try HEIFFixtures.encode(HEIFDecodingTests.quadrants) }
}

@Suite("WebP, GIF, HEIC and AVIF: truncations, flipped bytes, bombs, missing libraries", .offThePool)
struct FormatHostileInputTests {
    /// Decodes as an animation (every frame) and expects a typed error.
    static func expectRefused(_ data: Data, _ comment: Comment) {
        #expect(throws: ImageError.self, comment) { try ImageCodecRegistry.standard.decodeAnimation(data) }
    }

    /// Decodes every proper prefix of `data` as an animation and expects a typed error for each.
    static func expectTruncationsRefused(_ data: Data) {
        for length in 0..<data.count { expectRefused(data.prefix(length), "cut at \(length) of \(data.count)") }
    }

    /// Decodes `data` with one byte flipped at each of its first 400 offsets: a typed error or whole frames.
    static func expectFlipsSurvive(_ data: Data, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for offset in 0..<min(data.count, 400) {
            var bytes = Array(data)
            bytes[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            do {
                let animation = try ImageCodecRegistry.standard.decodeAnimation(Data(bytes))
                let frameBytes = animation.size.width * animation.size.height * 4
                #expect(animation.frames.allSatisfy { $0.image.pixels.count == frameBytes })
            } catch {
                #expect(error is ImageError, "flip at \(offset): \(error)")
            }
        }
    }

    @Test("every truncation of a WebP is a typed error", .enabled(if: CodecAvailability.webp, "install libwebp7"))
    func webpTruncations() throws { Self.expectTruncationsRefused(try FormatSamples.webp()) }

    @Test(
        "every truncation of an animated WebP is a typed error",
        .enabled(if: CodecAvailability.webpDemux, "install libwebpdemux2")
    )
    func animatedWebPTruncations() throws { Self.expectTruncationsRefused(try FormatSamples.animatedWebP()) }

    @Test(
        "every truncation of a GIF is a typed error, also for the first frame alone",
        .enabled(if: CodecAvailability.gif, "install libgif7")
    )
    func gifTruncations() throws {
        let data = try FormatSamples.gif()
        for length in 0..<data.count {
            Self.expectRefused(data.prefix(length), "cut at \(length) of \(data.count)")
            // a still decode skips the later frames' data but still needs the trailer
            #expect(throws: ImageError.self, "still, cut at \(length)") { try ImageDecoder.decode(data.prefix(length)) }
        }
    }

    @Test("truncations of a HEIC are typed errors", .enabled(if: CodecAvailability.heif, "install libheif1"))
    func heicTruncations() throws {
        let data = try FormatSamples.heic()
        for length in stride(from: 0, to: data.count, by: max(1, data.count / 97)) {
            Self.expectRefused(data.prefix(length), "heic cut at \(length) of \(data.count)")
        }
    }

    @Test("flipped bytes in a WebP never crash", .enabled(if: CodecAvailability.webp, "install libwebp7"))
    func webpByteFlips() throws { Self.expectFlipsSurvive(try FormatSamples.webp(), seed: 1) }

    @Test(
        "flipped bytes in an animated WebP never crash",
        .enabled(if: CodecAvailability.webpDemux, "install libwebpdemux2")
    )
    func animatedWebPByteFlips() throws { Self.expectFlipsSurvive(try FormatSamples.animatedWebP(), seed: 2) }

    @Test("flipped bytes in a GIF never crash", .enabled(if: CodecAvailability.gif, "install libgif7"))
    func gifByteFlips() throws { Self.expectFlipsSurvive(try FormatSamples.gif(), seed: 3) }

    @Test("flipped bytes in a HEIC never crash", .enabled(if: CodecAvailability.heif, "install libheif1"))
    func heicByteFlips() throws { Self.expectFlipsSurvive(try FormatSamples.heic(), seed: 4) }

    @Test(
        "a WebP claiming 16384×16384 is refused before allocating",
        .enabled(if: CodecAvailability.webp, "install libwebp7"))
    func webpHugeCanvas() throws {
        // Given a lossless WebP whose VP8L header is patched to the largest size (14 bits each)
        var bytes = Array(try WebPFixtures.lossless(Image(width: 2, height: 2, fill: .white)))
        #expect(Array(bytes[12..<16]) == Array("VP8L".utf8))
        bytes[21] = 0xFF
        bytes[22] = 0xFF
        bytes[23] = 0xFF
        bytes[24] = (bytes[24] & 0xF0) | 0x0F

        // When / Then
        #expect(throws: ImageError.tooManyPixels(width: 16384, height: 16384, limit: 100_000_000)) {
            try ImageDecoder.decode(Data(bytes))
        }
    }

    @Test(
        "an animated WebP of 10,000 frames or a huge canvas is refused before decoding frames",
        .enabled(if: CodecAvailability.webpDemux, "install libwebpdemux2"))
    func webpAnimationBombs() throws {
        // Given 10,000 one-pixel frames, and one frame on a 16000×16000 canvas
        let pixel = WebPFixtures.Frame(image: Image(width: 1, height: 1, fill: .white))
        let manyFrames = try WebPFixtures.animated(canvas: .square(1), frames: Array(repeating: pixel, count: 10_000))
        let hugeCanvas = try WebPFixtures.animated(canvas: .square(16_000), frames: [pixel])

        // When / Then
        #expect(throws: ImageError.tooManyFrames(format: .webp, frameCount: 10_000, limit: 1000)) {
            try ImageCodecRegistry.standard.decodeAnimation(manyFrames)
        }
        #expect(throws: ImageError.tooManyPixels(width: 16_000, height: 16_000, limit: 100_000_000)) {
            try ImageCodecRegistry.standard.decodeAnimation(hugeCanvas)
        }
        #expect(
            throws: ImageError.animationTooLarge(format: .webp, frameCount: 10_000, canvas: .square(1), limit: 5000)
        ) {
            try ImageCodecRegistry.standard.decodeAnimation(
                manyFrames, options: ImageDecodingOptions(maxFrameCount: 20_000, maxAnimationPixelCount: 5000))
        }
    }

    @Test(
        "a GIF of 10,000 frames, a 65535×65535 screen or zero-size frames is refused or read, never allocated blindly",
        .enabled(if: CodecAvailability.gif, "install libgif7"))
    func gifBombs() throws {
        // Given 10,000 one-pixel frames
        let pixel = GIFFixtures.Frame(width: 1, height: 1, indices: [0])
        let manyFrames = try GIFFixtures.gif(width: 1, height: 1, frames: Array(repeating: pixel, count: 10_000))
        // the headers' count is reported, and no frame is decoded before the refusal
        let counter = AnimationFrameCounter()
        AnimationFrameCounter.$current.withValue(counter) {
            #expect(throws: ImageError.tooManyFrames(format: .gif, frameCount: 10_000, limit: 1000)) {
                try ImageCodecRegistry.standard.decodeAnimation(manyFrames)
            }
            #expect(
                throws: ImageError.animationTooLarge(format: .gif, frameCount: 10_000, canvas: .square(1), limit: 10)
            ) {
                try ImageCodecRegistry.standard.decodeAnimation(
                    manyFrames, options: ImageDecodingOptions(maxFrameCount: 20_000, maxAnimationPixelCount: 10))
            }
        }
        #expect(counter.count == 0)

        // Given a screen of 65535×65535
        var huge = Array(try GIFFixtures.gif(width: 1, height: 1, frames: [pixel]))
        huge.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: ImageError.tooManyPixels(width: 65535, height: 65535, limit: 100_000_000)) {
            try ImageDecoder.decode(Data(huge))
        }

        // Given frames of zero width and zero height (descriptor patched after writing)
        var zero = Array(try GIFFixtures.gif(width: 2, height: 2, frames: [pixel, pixel]))
        let descriptors = zero.indices.filter {
            zero[$0] == 0x2C && $0 + 9 < zero.count && zero[$0 + 5] == 1 && zero[$0 + 7] == 1
        }
        #expect(descriptors.count == 2)
        zero[descriptors[0] + 5] = 0
        zero[descriptors[1] + 7] = 0
        let animation = try ImageCodecRegistry.standard.decodeAnimation(Data(zero))
        #expect(animation.frames.count == 2)
        #expect(animation.frames.allSatisfy { $0.image == Image(width: 2, height: 2) }, "nothing is drawn")
    }

    @Test(
        "a HEIC whose ispe claims 20000×20000 is refused before decoding",
        .enabled(if: CodecAvailability.heif, "install libheif1")
    )
    func heicHugeCanvas() throws {
        // Given a HEIC whose image spatial extents boxes (colour and alpha) are patched to 20000×20000
        var bytes = Array(try FormatSamples.heic())
        let boxes = bytes.indices.filter { Array(bytes[$0..<min(bytes.count, $0 + 4)]) == Array("ispe".utf8) }
        #expect(!boxes.isEmpty)
        let size: [UInt8] = [0, 0, 0x4E, 0x20]  // 20000, big-endian
        for ispe in boxes { bytes.replaceSubrange(ispe + 8..<ispe + 16, with: size + size) }
        #expect(try ImageDecoder.header(of: Data(bytes)).width == 20_000)

        // When / Then: our limit (or libheif's own security limit) refuses it, with a typed error
        #expect {
            try ImageDecoder.decode(Data(bytes))
        } throws: { error in
            switch error as? ImageError {
            case .tooManyPixels(20_000, 20_000, _), .corrupt(.heic, _), .unsupported(.heic, _): return true
            default: return false
            }
        }
    }

    @Test("a missing library is a typed error naming the format and the Debian package")
    func missingLibraries() throws {
        // Given decoders and an encoder over libraries that do not exist
        let webp = WebPDecoder(
            codec: WebPLibrary.load(soname: "libwebp-missing.so.7"),
            animation: WebPDemuxLibrary.load(soname: "libwebpdemux-missing.so.2")
        )
        let gif = GIFDecoder(library: GIFLibrary.load(soname: "libgif-missing.so.7"))
        let heif = HEIFDecoder(library: HEIFLibrary.load(soname: "libheif-missing.so.1"))
        let encoder = WebPEncoder(compression: .lossless, library: WebPLibrary.load(soname: "libwebp-missing.so.7"))
        let avif = Data([0, 0, 0, 28]) + Data("ftypavif".utf8) + Data([0, 0, 0, 0]) + Data("mif1miafavif".utf8)

        // When / Then
        func expectMissing(_ format: ImageFormat, _ package: String, _ body: () throws -> Void) {
            #expect {
                try body()
            } throws: { error in
                guard case .libraryMissing(let actualFormat, _, let actualPackage, _) = error as? ImageError else {
                    return false
                }
                let text = (error as? ImageError)?.description ?? ""
                return actualFormat == format && actualPackage == package && text.contains("apt-get install \(package)")
            }
        }
        expectMissing(.webp, "libwebp7") { _ = try webp.decode(Data("RIFF\0\0\0\0WEBPVP8 ".utf8), options: .init()) }
        expectMissing(.gif, "libgif7") { _ = try gif.decode(Data("GIF89a".utf8), options: .init()) }
        expectMissing(.avif, "libheif1") { _ = try heif.decode(avif, options: .init()) }
        expectMissing(.webp, "libwebp7") { _ = try encoder.encode(Image(width: 1, height: 1)) }
        if CodecAvailability.webp {
            let demuxMissing = WebPDecoder(
                codec: WebPLibrary.system, animation: WebPDemuxLibrary.load(soname: "libwebpdemux-missing.so.2"))
            expectMissing(.webp, "libwebpdemux2") {
                _ = try demuxMissing.decodeAnimation(try FormatSamples.animatedWebP(), options: .init())
            }
        }
    }
}
