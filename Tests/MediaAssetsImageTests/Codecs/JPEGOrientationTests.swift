import CJPEG
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("JPEG EXIF orientation", .offThePool)
struct JPEGOrientationTests {
    /// Stored quadrants of a 32×16 picture: top-left red, top-right green, bottom-left blue, bottom-right white.
    static let red = RGBA(red: 255, green: 0, blue: 0)
    static let green = RGBA(red: 0, green: 255, blue: 0)
    static let blue = RGBA(red: 0, green: 0, blue: 255)
    static let white = RGBA.white

    static func quadrantJPEG(app1: [UInt8]?) throws -> Data {
        var rgb: [UInt8] = []
        for y in 0..<16 {
            for x in 0..<32 {
                let color = y < 8 ? (x < 16 ? red : green) : (x < 16 ? blue : white)
                rgb += [color.red, color.green, color.blue]
            }
        }
        return try CodecFixtures.jpeg(rgb, width: 32, height: 16, quality: 100, app1: app1)
    }

    /// Per orientation: upright size, then the colours at the upright top-left, top-right, bottom-left,
    /// bottom-right corners.
    static let cases: [(orientation: Int, size: PixelSize, corners: [RGBA])] = [
        (1, PixelSize(width: 32, height: 16), [red, green, blue, white]),
        (2, PixelSize(width: 32, height: 16), [green, red, white, blue]),
        (3, PixelSize(width: 32, height: 16), [white, blue, green, red]),
        (4, PixelSize(width: 32, height: 16), [blue, white, red, green]),
        (5, PixelSize(width: 16, height: 32), [red, blue, green, white]),
        (6, PixelSize(width: 16, height: 32), [blue, red, white, green]),
        (7, PixelSize(width: 16, height: 32), [white, green, blue, red]),
        (8, PixelSize(width: 16, height: 32), [green, white, red, blue]),
    ]

    @Test("orientations 1–8 turn the pixels upright (both TIFF byte orders)", arguments: cases, [false, true])
    func appliesOrientation(
        orientationCase: (orientation: Int, size: PixelSize, corners: [RGBA]), bigEndian: Bool
    ) throws {
        // Given the quadrant picture tagged with an EXIF orientation
        let exif = CodecFixtures.exifPayload(orientation: orientationCase.orientation, bigEndian: bigEndian)
        let data = try Self.quadrantJPEG(app1: exif)

        // When it is decoded
        let image = try ImageDecoder.decode(data)

        // Then the size and the corner colours are the upright ones
        #expect(PixelSize(width: image.width, height: image.height) == orientationCase.size)
        let inset = 3
        let points = [
            (inset, inset), (image.width - 1 - inset, inset),
            (inset, image.height - 1 - inset), (image.width - 1 - inset, image.height - 1 - inset),
        ]
        for (point, expected) in zip(points, orientationCase.corners) {
            let actual = image[point.0, point.1]
            let difference = CodecFixtures.difference(
                [actual.red, actual.green, actual.blue], [expected.red, expected.green, expected.blue]
            )
            #expect(difference.max <= 24, "at \(point): \(actual) instead of \(expected)")
        }
        let header = try ImageDecoder.header(of: data)
        #expect(header.orientation.rawValue == orientationCase.orientation)
        #expect(header.width == 32 && header.height == 16)
    }

    @Test("appliesOrientation false keeps the stored pixels")
    func keepsStoredPixelsWhenAsked() throws {
        // Given a picture tagged "rotate 90° clockwise"
        let data = try Self.quadrantJPEG(app1: CodecFixtures.exifPayload(orientation: 6, bigEndian: false))

        // When decoded without applying the orientation
        let image = try ImageDecoder.decode(data, options: ImageDecodingOptions(appliesOrientation: false))

        // Then it is as stored
        #expect(image.width == 32 && image.height == 16)
        #expect(image[3, 3].red > 200 && image[3, 3].green < 60)
    }

    @Test(
        "malformed or missing EXIF means upright, never a crash",
        arguments: [
            [UInt8](),
            Array("Exif".utf8) + [0, 0],
            Array("Exif".utf8) + [0, 0] + Array("II".utf8) + [42, 0, 0xFF, 0xFF, 0xFF, 0x7F],
            Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0xFF, 0xFF],
            Array(CodecFixtures.exifPayload(orientation: 9, bigEndian: true)),
            Array(CodecFixtures.exifPayload(orientation: 6, bigEndian: true).dropLast(8)),
            Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8),
        ])
    func toleratesBadExif(payload: [UInt8]) throws {
        // Given a JPEG whose APP1 is broken, truncated, out of range or not EXIF at all
        let data = try Self.quadrantJPEG(app1: payload.isEmpty ? nil : payload)

        // When
        let header = try ImageDecoder.header(of: data)
        let image = try ImageDecoder.decode(data)

        // Then it is treated as upright
        #expect(header.orientation == .identity)
        #expect(image.width == 32 && image.height == 16)
    }
}
