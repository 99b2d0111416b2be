import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssetsImage

@Suite("Fuzz entry points survive seeded mutations", .offThePool)
struct CodecFuzzingTests {
    /// Applies one of: flip a byte, overwrite a run, insert bytes, delete a run, or cut the tail.
    static func mutate(_ seed: Data, _ generator: inout SeededGenerator) -> Data {
        var bytes = Array(seed)
        guard !bytes.isEmpty else { return Data([UInt8(truncatingIfNeeded: generator.next())]) }
        let offset = Int(generator.next() % UInt64(bytes.count))
        let length = 1 + Int(generator.next() % 8)
        switch generator.next() % 5 {
        case 0: bytes[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
        case 1:
            for index in offset..<min(bytes.count, offset + length) {
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
        case 2:
            bytes.insert(contentsOf: (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, at: offset)
        case 3: bytes.removeSubrange(offset..<min(bytes.count, offset + length))
        default: bytes.removeSubrange(offset...)
        }
        return Data(bytes)
    }

    static func run(_ entry: (Data) -> Void, seeds: [Data], iterations: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for iteration in 0..<iterations {
            var data = seeds[iteration % seeds.count]
            for _ in 0...(generator.next() % 3) { data = mutate(data, &generator) }
            entry(data)
        }
    }

    @Test("fuzzWebPDecoder", .enabled(if: CodecAvailability.webpDemux, "install libwebp7 and libwebpdemux2"))
    func webp() throws {
        Self.run(
            fuzzWebPDecoder, seeds: [try FormatSamples.webp(), try FormatSamples.animatedWebP()], iterations: 1500,
            seed: 1)
    }

    @Test("fuzzGIFDecoder", .enabled(if: CodecAvailability.gif, "install libgif7"))
    func gif() throws {
        Self.run(fuzzGIFDecoder, seeds: [try FormatSamples.gif()], iterations: 1500, seed: 2)
    }

    @Test("fuzzHEIFDecoder", .enabled(if: CodecAvailability.heif, "install libheif1"))
    func heif() throws {
        Self.run(fuzzHEIFDecoder, seeds: [try FormatSamples.heic()], iterations: 300, seed: 3)
    }

    @Test("fuzzImageCodecRegistry and fuzzThumbHash")
    func registryAndThumbHash() throws {
        let seeds = [try ImageEncoder.png(FormatSamples.image), try ImageEncoder.jpeg(FormatSamples.image)]
        Self.run(fuzzImageCodecRegistry, seeds: seeds, iterations: 500, seed: 4)
        let hash = try ImagePlaceholder(image: FormatSamples.image).thumbHash
        Self.run(fuzzThumbHash, seeds: [hash, Data()], iterations: 2000, seed: 5)
    }
}
