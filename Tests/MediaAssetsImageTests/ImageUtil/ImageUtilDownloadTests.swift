import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageUtil completion-handler wrappers (the seed's downloadImage)")
struct ImageUtilDownloadTests {
    @Test("the seed's form calls the handler with the image")
    func seedFormSuccess() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.png", try ImageUtilFixtures.transparentPNG(), contentType: "image/png")
        let images = Recorder<Image>()

        // When
        let task = harness.util.downloadImage(
            url: url.absoluteString, imageCompletionHandler: { images.append($0) }, storageType: .hybrid(.image)
        )
        await task.value

        // Then
        #expect(images.all.count == 1)
        #expect(images.all.first?.width == 120 && images.all.first?.height == 80)
    }

    @Test(
        "the seed's form does not call the handler for an invalid URL or a failure",
        arguments: ["", "not a url", "/missing"])
    func seedFormFailure(path: String) async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let text = path.hasPrefix("/") ? harness.origin.url(for: path).absoluteString : path
        let images = Recorder<Image>()

        // When
        let task = harness.util.downloadImage(
            url: text, imageCompletionHandler: { images.append($0) }, storageType: .disk
        )
        await task.value

        // Then
        #expect(images.all.isEmpty)
    }

    @Test("the Result form reports success, an invalid URL and an HTTP error")
    func resultForm() async throws {
        // Given
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/photo.jpg", try ImageUtilFixtures.gradientJPEG())
        let results = Recorder<Result<Image, Error>>()

        // When
        for text in [url.absoluteString, "not a url", harness.origin.url(for: "/missing").absoluteString] {
            await harness.util.downloadImage(url: text, storageType: .hybrid(.image)) { results.append($0) }.value
        }

        // Then
        let all = results.all
        #expect(all.count == 3)
        #expect((try? all[0].get())?.width == 300)
        #expect(throws: ImageUtilError.invalidURL("not a url")) { try all[1].get() }
        #expect {
            try all[2].get()
        } throws: { error in
            guard case .httpStatus(code: 404, _) = error as? AssetsError else { return false }
            return true
        }
    }
}
