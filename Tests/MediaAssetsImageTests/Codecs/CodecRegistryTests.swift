import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsImage

/// A user's format: "TINY", width and height bytes, then opaque RGB.
private struct TinyDecoder: ImageDecoding {
    var identifier: String { "tiny" }
    static let format = ImageFormat(rawValue: "tiny")

    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("TINY".utf8)) }

    func header(of data: Data) throws -> ImageHeader {
        guard data.count >= 6 else { throw ImageError.truncated(format: Self.format, reason: "no size") }
        let bytes = Array(data)
        return ImageHeader(
            format: Self.format, width: Int(bytes[4]), height: Int(bytes[5]), orientation: .identity, hasAlpha: false
        )
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let header = try header(of: data)
        try ImageDecoder.checkPixelLimit(of: header, options: options)
        let rgb = Array(data.dropFirst(6))
        guard rgb.count == header.width * header.height * 3 else {
            throw ImageError.truncated(format: Self.format, reason: "\(rgb.count) colour bytes")
        }
        var pixels: [UInt8] = []
        for index in stride(from: 0, to: rgb.count, by: 3) {
            pixels += [rgb[index], rgb[index + 1], rgb[index + 2], 255]
        }
        return Image(width: header.width, height: header.height, pixels: pixels)
    }
}

@Suite("Codec registry: magic bytes choose the decoder, users add their own", .offThePool)
struct CodecRegistryTests {
    static let tinyBytes = Data("TINY".utf8) + Data([2, 1, 10, 20, 30, 40, 50, 60])

    @Test("a user's decoder is registered, chosen by its magic bytes and used by the renderer")
    func userDecoderIsUsed() throws {
        // Given a configuration with the user's decoder registered
        var configuration = ImageUtil.Configuration()
        #expect(throws: ImageError.self) { try configuration.codecs.decode(Self.tinyBytes) }
        configuration.codecs.register(TinyDecoder())

        // When the renderer decodes the user's bytes
        let image = try VariantRenderer(configuration: configuration).decode(Self.tinyBytes, targetSize: nil)

        // Then the user's decoder made it, and the built-in formats still decode
        #expect(image == Image(width: 2, height: 1, pixels: [10, 20, 30, 255, 40, 50, 60, 255]))
        #expect(try configuration.codecs.decoder(for: Self.tinyBytes).identifier == "tiny")
        #expect(try configuration.codecs.header(of: Self.tinyBytes).format.rawValue == "tiny")
        let png = try ImageEncoder.png(Image(width: 3, height: 2, fill: .white))
        #expect(try configuration.codecs.decoder(for: png).identifier == "png")
    }

    @Test("registering a decoder with an existing identifier replaces it and asks it first")
    func registrationReplaces() throws {
        // Given the standard registry
        var registry = ImageCodecRegistry.standard
        let count = registry.decoders.count

        // When a decoder is registered twice under one identifier
        registry.register(TinyDecoder())
        registry.register(TinyDecoder())

        // Then it is present once, first
        #expect(registry.decoders.count == count + 1)
        #expect(registry.decoders.first?.identifier == "tiny")
        #expect(registry.decoder(identifier: "webp") != nil)
        #expect(ImageCodecRegistry.standard.identifier == "jpeg+png+webp+gif+heif")
        #expect(registry.identifier == "tiny+jpeg+png+webp+gif+heif")
    }

    @Test("sniffing reads magic bytes of every built-in format, never a name")
    func sniffsBuiltInFormats() throws {
        // Given files of each format
        let image = Image(width: 4, height: 3, fill: RGBA(red: 200, green: 100, blue: 50))
        let samples: [(Data, ImageFormat)] = [
            (try ImageEncoder.jpeg(image), .jpeg), (try ImageEncoder.png(image), .png),
            (try WebPFixtures.lossless(image), .webp),
            (try GIFFixtures.gif(width: 1, height: 1, frames: [.init(width: 1, height: 1, indices: [0])]), .gif),
            (Data([0, 0, 0, 24]) + Data("ftypheic".utf8) + Data([0, 0, 0, 0]) + Data("mif1heic".utf8), .heic),
            (Data([0, 0, 0, 28]) + Data("ftypmif1".utf8) + Data([0, 0, 0, 0]) + Data("mif1miafavif".utf8), .avif),
        ]
        for (data, format) in samples {
            // When / Then
            #expect(ImageFormat.sniff(data) == format)
            #expect(format.mimeType == "image/\(format.rawValue)")
        }
        #expect(ImageFormat.sniff(Data([0, 0, 0, 24]) + Data("ftypmp42".utf8) + Data(count: 12)) == nil)
        #expect(ImageFormat.sniff(Data("RIFF\0\0\0\0WAVE".utf8)) == nil)
    }

    @Test("the pixel limit reaches every decoder through the options")
    func pixelLimitApplies() throws {
        // Given a small limit
        let options = ImageDecodingOptions(maxPixelCount: 1)

        // When / Then the user's decoder and a built-in one refuse a 2-pixel image
        var registry = ImageCodecRegistry.standard
        registry.register(TinyDecoder())
        #expect(throws: ImageError.tooManyPixels(width: 2, height: 1, limit: 1)) {
            try registry.decode(Self.tinyBytes, options: options)
        }
        let webp = try WebPFixtures.lossless(Image(width: 2, height: 1, fill: .white))
        #expect(throws: ImageError.tooManyPixels(width: 2, height: 1, limit: 1)) {
            try registry.decode(webp, options: options)
        }
    }
}
