import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("Image format sniffing", .offThePool)
struct ImageFormatTests {
    @Test("JPEG and PNG are recognised from their magic bytes")
    func recognisesMagicBytes() throws {
        // Given real encoded files
        let image = Image(width: 2, height: 2, fill: .white)
        let jpeg = try ImageEncoder.jpeg(image)
        let png = try ImageEncoder.png(image)

        // When / Then
        #expect(ImageFormat.sniff(jpeg) == .jpeg)
        #expect(ImageFormat.sniff(png) == .png)
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.png.mimeType == "image/png")
    }

    @Test(
        "garbage, empty and too-short data are not images",
        arguments: [
            Data(), Data([0xFF, 0xD8]), Data([0x89, 0x50, 0x4E, 0x47]), Data("GIF87".utf8),
            Data("<html>not an image</html>".utf8),
        ])
    func rejectsNonImages(data: Data) {
        // When / Then
        #expect(ImageFormat.sniff(data) == nil)
        #expect(throws: ImageError.unknownFormat(byteCount: data.count, leadingBytes: Array(data.prefix(8)))) {
            try ImageDecoder.decode(data)
        }
    }

    @Test("sniffing and decoding work on a Data slice that does not start at index 0")
    func handlesDataSlices() throws {
        // Given a PNG embedded after 5 bytes of junk, sliced out
        let png = try ImageEncoder.png(Image(width: 3, height: 2, fill: RGBA(red: 9, green: 8, blue: 7)))
        let container = Data([1, 2, 3, 4, 5]) + png
        let slice = container[5...]

        // When
        let image = try ImageDecoder.decode(slice)

        // Then
        #expect(ImageFormat.sniff(slice) == .png)
        #expect(image[2, 1] == RGBA(red: 9, green: 8, blue: 7))
    }

    @Test("error descriptions say what happened")
    func describesErrors() {
        // Given / When
        let unknown = ImageError.unknownFormat(byteCount: 3, leadingBytes: [0x47, 0x49, 0x0A]).description
        let bomb = ImageError.tooManyPixels(width: 100_000, height: 100_000, limit: 100).description

        // Then
        #expect(unknown.contains("47 49 0A"))
        #expect(bomb.contains("100000×100000"))
        #expect(ImageError.unknownFormat(byteCount: 0, leadingBytes: []).description.contains("empty"))
    }
}
