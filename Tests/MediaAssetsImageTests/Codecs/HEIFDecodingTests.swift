import CDynamicCodecs
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(
    "HEIC and AVIF through libheif: primary image, alpha, irot/imir",
    .enabled(if: CodecAvailability.heif, "install libheif1"), .offThePool)
struct HEIFDecodingTests {
    static let quadrantColors = [
        RGBA(red: 230, green: 30, blue: 30), RGBA(red: 30, green: 200, blue: 30),
        RGBA(red: 30, green: 30, blue: 220), RGBA(red: 240, green: 240, blue: 40),
    ]

    /// 32×16: four flat quadrants (top left, top right, bottom left, bottom right), so lossy coding keeps them.
    static let quadrants: Image = {
        var pixels: [UInt8] = []
        for y in 0..<16 {
            for x in 0..<32 {
                let color = quadrantColors[(y < 8 ? 0 : 2) + (x < 16 ? 0 : 1)]
                pixels += [color.red, color.green, color.blue, 255]
            }
        }
        return Image(width: 32, height: 16, pixels: pixels)
    }()

    /// The colour at the centre of each quadrant of `image`.
    static func quadrantCenters(_ image: Image) -> [RGBA] {
        let (w, h) = (image.width, image.height)
        return [image[w / 4, h / 4], image[3 * w / 4, h / 4], image[w / 4, 3 * h / 4], image[3 * w / 4, 3 * h / 4]]
    }

    static let compressions: [(Int32, ImageFormat)] = [
        (MA_HEIF_COMPRESSION_HEVC, .heic), (MA_HEIF_COMPRESSION_AV1, .avif),
    ]

    @Test("HEIC and AVIF decode to the primary image", arguments: [0, 1])
    func decodesPrimaryImage(compressionIndex: Int) throws {
        // Given a file of each kind
        let (compression, format) = Self.compressions[compressionIndex]
        let data = try HEIFFixtures.encode(Self.quadrants, compression: compression)

        // When decoded
        let header = try ImageDecoder.header(of: data)
        let image = try ImageDecoder.decode(data)

        // Then format, size and colours match
        #expect(ImageFormat.sniff(data) == format)
        #expect(header.format == format && header.width == 32 && header.height == 16)
        for (actual, expected) in zip(Self.quadrantCenters(image), Self.quadrantColors) {
            #expect(isClose(actual, expected, tolerance: 20), "\(actual) vs \(expected)")
        }
    }

    @Test("alpha is decoded and premultiplied", arguments: [0, 1])
    func alpha(compressionIndex: Int) throws {
        // Given an image whose right half is transparent
        var pixels = Self.quadrants.pixels
        for y in 0..<16 {
            for x in 16..<32 { pixels.replaceSubrange((y * 32 + x) * 4..<(y * 32 + x + 1) * 4, with: [0, 0, 0, 0]) }
        }
        let data = try HEIFFixtures.encode(
            Image(width: 32, height: 16, pixels: pixels), compression: Self.compressions[compressionIndex].0
        )

        // When decoded
        let image = try ImageDecoder.decode(data)

        // Then the transparent half is transparent and the opaque half opaque
        #expect(try ImageDecoder.header(of: data).hasAlpha)
        #expect(image[24, 4].alpha < 8 && image[24, 4].red <= image[24, 4].alpha)
        #expect(image[4, 4].alpha > 247)
    }

    @Test(
        "irot/imir orientations are applied to HEIC and AVIF: the result is upright",
        arguments: ImageOrientation.allCases, [0, 1]
    )
    func orientation(orientation: ImageOrientation, compressionIndex: Int) throws {
        // Given the quadrants stored as HEIC or AVIF with an orientation
        let data = try HEIFFixtures.encode(
            Self.quadrants, compression: Self.compressions[compressionIndex].0, orientation: orientation
        )

        // When decoded
        let image = try ImageDecoder.decode(data)

        // Then it equals the stored pixels turned as EXIF would turn them
        let upright = OrientationTransform.apply(orientation, to: Self.quadrants)
        #expect(image.width == upright.width && image.height == upright.height)
        for (actual, expected) in zip(Self.quadrantCenters(image), Self.quadrantCenters(upright)) {
            #expect(isClose(actual, expected, tolerance: 20), "\(orientation): \(actual) vs \(expected)")
        }
        #expect(
            try ImageDecoder.header(of: data).orientedSize == PixelSize(width: upright.width, height: upright.height))
    }
}
