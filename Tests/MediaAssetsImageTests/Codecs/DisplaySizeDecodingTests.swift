import CDynamicCodecs
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// Every still format decodes toward `targetSize × downsamplingHeadroom` and only `regionOfInterest`: the
/// avatar made from such a decode matches the one made from a full decode, a cut file is still `.truncated`,
/// and the pixel limit holds before any work.
@Suite("Display-size decoding: every still format, target size and region of interest", .offThePool)
struct DisplaySizeDecodingTests {
    static let picture = DisplaySizeFixtures.detailed(width: 640, height: 480)
    static let style = AvatarStyle.circle(diameter: 48)

    /// The formats under test and how each encodes the picture.
    enum Format: String, CaseIterable, CustomStringConvertible {
        case png, interlacedPNG, webp, heic, avif, jpeg, progressiveJPEG

        var description: String { rawValue }

        var isAvailable: Bool {
            switch self {
            case .webp: return CodecAvailability.webp
            case .heic, .avif: return CodecAvailability.heif
            default: return true
            }
        }

        func encode(_ image: Image) throws -> Data {
            switch self {
            case .png: return try DisplaySizeFixtures.png(image, interlaced: false)
            case .interlacedPNG: return try DisplaySizeFixtures.png(image, interlaced: true)
            case .webp: return try WebPFixtures.lossy(image, quality: 95)
            case .heic: return try HEIFFixtureEncoder.encode(image, fast: true)
            case .avif: return try HEIFFixtureEncoder.encode(image, compression: MA_HEIF_COMPRESSION_AV1)
            case .jpeg: return try ImageEncoder.jpeg(image, quality: 95)
            case .progressiveJPEG:
                return try CodecFixtures.jpeg(
                    DisplaySizeFixtures.rgb(of: image), width: image.width, height: image.height, quality: 95,
                    progressive: true)
            }
        }
    }

    static func options(target: PixelSize?, region: ImageRegion?) -> ImageDecodingOptions {
        ImageDecodingOptions(targetSize: target, regionOfInterest: region)
    }

    @Test("the avatar from a display-size decode matches the one from a full decode", arguments: Format.allCases)
    func avatarMatchesFullDecode(format: Format) throws {
        try #require(format.isAvailable, "the library for \(format) is not installed")
        // Given the picture in this format
        let data = try format.encode(Self.picture)

        // When a 48 px circle is made from a decode of its region at display size, and from a full decode
        let options = Self.options(target: Self.style.targetSize, region: Self.style.regionOfInterest)
        let reduced = try ImageDecoder.decode(data, options: options)
        let full = try ImageDecoder.decode(data)
        let fromReduced = try Self.style.process(reduced)
        let fromFull = try Self.style.process(full)

        // Then the decode is the square region, reduced but still at least twice the target, and the avatars agree
        #expect(abs(reduced.width - reduced.height) <= 1, "\(reduced.width)×\(reduced.height) is not the square")
        #expect(reduced.height >= 96 && reduced.height < 480, "decoded \(reduced.width)×\(reduced.height)")
        let psnr = DisplaySizeFixtures.psnr(fromReduced, fromFull)
        #expect(psnr >= 38, "\(format): \(psnr) dB")
    }

    @Test("a region without a target size is the region at full size", arguments: Format.allCases)
    func regionAtFullSize(format: Format) throws {
        try #require(format.isAvailable, "the library for \(format) is not installed")
        // Given the picture and an off-centre region
        let data = try format.encode(Self.picture)
        let region = ImageRegion.relative(x: 0.5, y: 0.25, width: 0.25, height: 0.5)

        // When only the region is decoded, and the whole image is decoded and cut
        let part = try ImageDecoder.decode(data, options: Self.options(target: nil, region: region))
        let full = try ImageDecoder.decode(data)
        let cut = full.cropped(to: region.rect(in: PixelSize(width: full.width, height: full.height)))

        // Then they are the same pixels, but where libwebp moves an odd origin by one pixel and libjpeg upsamples
        // chroma at the cut edges from the columns it kept
        #expect(part.width == cut.width && part.height == cut.height)
        let psnr = DisplaySizeFixtures.psnr(part, cut)
        let bound: Double =
            switch format {
            case .webp: 30
            case .jpeg, .progressiveJPEG: 50
            default: .infinity
            }
        if bound == .infinity {
            #expect(part == cut, "\(format): \(psnr) dB")
        } else {
            #expect(psnr >= bound, "\(format): \(psnr) dB")
        }
    }

    @Test("a row-by-row PNG decode is the exact block average of the full image", arguments: [false, true])
    func pngIsExactBoxAverage(interlaced: Bool) throws {
        // Given an odd size and alpha, so partial blocks and premultiplication both matter
        var picture = DisplaySizeFixtures.detailed(width: 203, height: 151)
        for offset in stride(from: 3, to: picture.pixels.count, by: 16) { picture.pixels[offset] = 100 }
        picture = Image(width: 203, height: 151, pixels: Self.premultiplied(picture.pixels))
        let data = try DisplaySizeFixtures.png(picture, interlaced: interlaced)

        // When decoded toward 20×20 (headroom 2: 40 px) keeping a centred 3:2 region
        let options = Self.options(target: .square(20), region: .centered(aspectRatio: PixelSize(width: 3, height: 2)))
        let decoded = try ImageDecoder.decode(data, options: options)

        // Then it is the box reduction by the largest factor that leaves 40 px, pixel for pixel
        let plan = DisplaySizePlan(sourceSize: PixelSize(width: 203, height: 151), options: options)
        #expect(plan.factor == 3)
        let expected = DisplaySizeFixtures.boxReduced(try ImageDecoder.decode(data), plan: plan)
        #expect(decoded == expected)
    }

    @Test("a cut file is still truncated when decoded at display size", arguments: Format.allCases)
    func truncation(format: Format) throws {
        try #require(format.isAvailable, "the library for \(format) is not installed")
        // Given the file cut three quarters in, and cut by its last byte
        let data = try format.encode(Self.picture)
        let options = Self.options(target: Self.style.targetSize, region: Self.style.regionOfInterest)

        for cut in [data.count * 3 / 4, data.count - 1] {
            // When / Then decoding at display size throws .truncated, never a partial image
            #expect(throws: ImageError.self) { try ImageDecoder.decode(data.prefix(cut), options: options) }
            do {
                _ = try ImageDecoder.decode(data.prefix(cut), options: options)
            } catch let error as ImageError {
                guard case .truncated = error else {
                    Issue.record("\(format) cut at \(cut) of \(data.count): \(error)")
                    continue
                }
            }
        }
    }

    @Test("the pixel limit is checked against the header before a display-size decode", arguments: Format.allCases)
    func pixelLimit(format: Format) throws {
        try #require(format.isAvailable, "the library for \(format) is not installed")
        // Given a limit below the picture's 640×480
        let data = try format.encode(Self.picture)
        var options = Self.options(target: .square(8), region: .centered(aspectRatio: .square(1)))
        options.maxPixelCount = 640 * 480 - 1

        // When / Then it is refused as too many pixels, naming the size
        #expect(throws: ImageError.tooManyPixels(width: 640, height: 480, limit: 640 * 480 - 1)) {
            try ImageDecoder.decode(data, options: options)
        }
    }

    static func premultiplied(_ pixels: [UInt8]) -> [UInt8] {
        var result = pixels
        result.withUnsafeMutableBufferPointer { PixelConversion.premultiply($0) }
        return result
    }
}
