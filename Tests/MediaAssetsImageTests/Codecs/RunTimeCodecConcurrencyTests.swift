import Foundation
import Testing

@testable import MediaAssetsImage

@Suite(
    "Run-time codecs decode concurrently",
    .enabled(
        if: CodecAvailability.webpDemux && CodecAvailability.gif && CodecAvailability.heif,
        "install libwebp7, libwebpdemux2, libgif7 and libheif1"
    )
)
struct RunTimeCodecConcurrencyTests {
    @Test("32 concurrent decodes of WebP, animated WebP, GIF and HEIC give the same frames as one at a time")
    func concurrentDecodes() async throws {
        // Given one file of each format and its frames decoded serially
        let files = [
            try FormatSamples.webp(), try FormatSamples.animatedWebP(), try FormatSamples.gif(),
            try FormatSamples.heic(),
        ]
        let expected = try files.map { try ImageCodecRegistry.standard.decodeAnimation($0) }

        // When each is decoded 8 times at once
        let results = try await withThrowingTaskGroup(of: (Int, AnimatedImage).self) { group in
            for round in 0..<32 {
                let index = round % files.count
                let file = files[index]
                group.addTask { (index, try ImageCodecRegistry.standard.decodeAnimation(file)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then every result matches
        #expect(results.count == 32)
        for (index, animation) in results { #expect(animation == expected[index], "file \(index)") }
    }
}
