import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("Placeholders: ThumbHash and average colour", .offThePool)
struct PlaceholderTests {
    @Test("a flat image's placeholder is that colour, in its aspect ratio")
    func flatColour() throws {
        // Given a landscape image of one colour
        let color = RGBA(red: 200, green: 60, blue: 30)
        let image = Image(width: 120, height: 60, fill: color)

        // When its placeholder is computed and read back from the stored hash
        let placeholder = try ImagePlaceholder(image: image)
        let stored = try ImagePlaceholder(thumbHash: placeholder.thumbHash)
        let picture = stored.image()

        // Then the average is exact, the hash's average and picture are close, and the shape is landscape
        #expect(placeholder.averageColor == color)
        #expect(isClose(stored.averageColor, color, tolerance: 12))
        #expect(placeholder.thumbHash.count <= 25)
        #expect(picture.width == 32 && picture.height < 32 && picture.height >= 12)
        #expect(isClose(picture[16, picture.height / 2], color, tolerance: 16))
        #expect(abs(stored.approximateAspectRatio - 2) < 0.5)
    }

    @Test("the placeholder keeps the layout: left red, right blue")
    func keepsLayout() throws {
        // Given a square image split in two colours
        var pixels: [UInt8] = []
        for _ in 0..<40 {
            for x in 0..<40 { pixels += x < 20 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        }
        let placeholder = try ImagePlaceholder(image: Image(width: 40, height: 40, pixels: pixels))

        // When rendered
        let picture = placeholder.image()

        // Then the left is redder and the right bluer, and the average is purple
        #expect(picture.width == 32 && picture.height == 32)
        #expect(picture[2, 16].red > picture[2, 16].blue + 100)
        #expect(picture[29, 16].blue > picture[29, 16].red + 100)
        #expect(placeholder.averageColor == RGBA(red: 128, green: 0, blue: 128))
    }

    @Test("transparency is kept: a transparent image gives a transparent placeholder")
    func alpha() throws {
        // Given an image whose top half is transparent
        var pixels: [UInt8] = []
        for y in 0..<20 {
            for _ in 0..<20 { pixels += y < 10 ? [0, 0, 0, 0] : [0, 255, 0, 255] }
        }
        let placeholder = try ImagePlaceholder(image: Image(width: 20, height: 20, pixels: pixels))

        // When rendered
        let picture = placeholder.image()

        // Then top is transparent-ish and bottom opaque-ish, and the average alpha is half
        #expect(picture[16, 1].alpha < 64)
        #expect(picture[16, 30].alpha > 192)
        #expect(placeholder.averageColor == RGBA(red: 0, green: 255, blue: 0, alpha: 128))
    }

    @Test("a hash shorter than its header says is a typed error")
    func truncatedHash() throws {
        let hash = try ImagePlaceholder(image: Image(width: 8, height: 8, fill: .white)).thumbHash
        for length in 0..<hash.count {
            #expect(throws: ImagePlaceholder.Failure.self, "cut at \(length)") {
                try ImagePlaceholder(thumbHash: hash.prefix(length))
            }
        }
    }
}
