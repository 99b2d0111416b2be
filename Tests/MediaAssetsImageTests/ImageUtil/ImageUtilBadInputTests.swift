import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil bad input: typed errors, nothing cached")
struct ImageUtilBadInputTests {
    enum BadInput: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case truncatedJPEG, corruptPNG, decompressionBomb, unknownFormat

        var testDescription: String { rawValue }

        func bytes() throws -> Data {
            switch self {
            case .truncatedJPEG:
                let whole = try ImageUtilFixtures.gradientJPEG()
                return whole.prefix(whole.count / 2)
            case .corruptPNG:
                var bytes = [UInt8](try ImageUtilFixtures.transparentPNG())
                bytes[bytes.count / 2] ^= 0x5A
                return Data(bytes)
            case .decompressionBomb:
                return try CodecFixtures.pngClaiming(width: 100_000, height: 100_000)
            case .unknownFormat:
                return testBytes(count: 512, seed: 7)
            }
        }

        func matches(_ error: ImageError) -> Bool {
            switch (self, error) {
            case (.truncatedJPEG, .truncated(format: .jpeg, _)): return true
            case (.corruptPNG, .corrupt(format: .png, _)): return true
            case (.decompressionBomb, .tooManyPixels(width: 100_000, height: 100_000, _)): return true
            case (.unknownFormat, .unknownFormat(byteCount: 512, _)): return true
            default: return false
            }
        }
    }

    @Test(
        "bad bytes throw ImageUtilError.undecodable and neither the original nor the variant is stored",
        arguments: BadInput.allCases)
    func badBytesAreNotCached(input: BadInput) async throws {
        // Given an origin serving bad bytes
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/bad", try input.bytes())
        let request = AssetRequest(url: url)

        // When
        let error = await #expect(throws: ImageUtilError.self) {
            try await harness.util.image(for: request, style: ImageUtilFixtures.circle)
        }

        // Then the error names the URL, the key and what the decoder found
        guard case let .undecodable(failedURL, key, reason) = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failedURL == url)
        #expect(key == harness.manager.cacheKey(for: request))
        #expect(input.matches(reason), "\(reason)")
        #expect(!(try await harness.isStored(key)))
        #expect(!(try await harness.isStored(harness.util.cacheKey(for: request, style: ImageUtilFixtures.circle))))
        #expect(harness.util.statistics.failures == 1)

        // And a later ask downloads again instead of finding the bad bytes
        await #expect(throws: ImageUtilError.self) {
            try await harness.util.image(for: request, style: ImageUtilFixtures.circle)
        }
        #expect(harness.origin.requestCount(for: "/bad") == 2)
    }

    @Test("a configured pixel limit refuses large originals")
    func configuredPixelLimit() async throws {
        // Given a util that allows 10,000 pixels
        var configuration = ImageUtil.Configuration()
        configuration.decodingOptions.maxPixelCount = 10_000
        let harness = try ImageUtilHarness(configuration: configuration)
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When / Then the 300×200 photo is refused
        await #expect {
            try await harness.util.image(for: url, style: ImageUtilFixtures.circle)
        } throws: { error in
            guard case .undecodable(_, _, .tooManyPixels(300, 200, 10_000)) = error as? ImageUtilError else {
                return false
            }
            return true
        }
        #expect(!(try await harness.isStored(harness.manager.cacheKey(for: AssetRequest(url: url)))))
    }

    @Test("a failing style throws its own error inside AssetProcessingError and keeps the good original")
    func failingStyle() async throws {
        // Given a freeform style that always throws
        struct Refused: Error {}
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let style = AvatarStyle.freeform(name: "refuse") { _ in throw Refused() }

        // When / Then
        await #expect {
            try await harness.util.image(for: url, style: style)
        } throws: { error in
            guard let failure = error as? AssetProcessingError else { return false }
            return failure.processor == "freeform(refuse)" && failure.underlying is Refused && failure.url == url
        }
        #expect(try await harness.isStored(harness.manager.cacheKey(for: AssetRequest(url: url))))
    }
    @Test("a style that cannot be drawn throws the same error type, before any request")
    func invalidStyleBeforeFetch() async throws {
        // Given a circle of diameter 0
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())

        // When / Then: the style's ImageProcessingError, wrapped with the asset, and nothing fetched; the same
        // for a bare processor of the user's
        let resize = ImageProcessors.Resize.exactFill(.square(0))
        for ask in 0..<3 {
            await #expect {
                switch ask {
                case 0: _ = try await harness.util.image(for: url, style: .circle(diameter: 0))
                case 1: _ = try await harness.util.encodedImage(for: url, style: .circle(diameter: 0))
                default: _ = try await harness.util.image(for: url, style: resize)
                }
            } throws: { error in
                guard let failure = error as? AssetProcessingError, failure.url == url else { return false }
                let expected = ImageProcessingError.invalidSize(
                    .square(0), processor: ask == 2 ? resize.identifier : "circle(0)")
                return failure.underlying as? ImageProcessingError == expected
            }
        }
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 0)
    }
}
