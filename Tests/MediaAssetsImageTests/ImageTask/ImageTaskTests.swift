import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("ImageTask")
struct ImageTaskTests {
    static let size = 8
    static let style = AvatarStyle.rectangle(size: .square(4))

    /// An 8×8 image of the preview format, and a util whose registry knows the format over a loader that
    /// sends the image's body as the test says.
    struct PreviewFixture {
        let directory: TemporaryDirectory
        let body = PreviewFormatDecoder.encode(
            ProcessingFixtures.smooth(width: ImageTaskTests.size, height: ImageTaskTests.size))
        let loader: PieceByPieceLoader
        let manager: AssetsManager
        let util: ImageUtil

        init() throws {
            directory = try TemporaryDirectory("ImageTaskTests")
            loader = PieceByPieceLoader(declaredLength: body.count)
            var configuration = ImageUtil.Configuration()
            configuration.codecs.register(PreviewFormatDecoder())
            configuration.variantFormat = .png  // lossless, so a stored variant compares exactly
            manager = try AssetsManager.forTesting(directory: directory, loader: loader)
            util = ImageUtil(manager: manager, configuration: configuration)
        }

        /// Sends the header and rows `0..<rowCount`.
        func sendHeader(withRows rowCount: Int) {
            loader.send(body.prefix(PreviewFormatDecoder.headerSize) + ImageTaskTests.rows(0..<rowCount, of: body))
        }
    }

    static func rows(_ range: Range<Int>, of body: Data) -> Data {
        let start = PreviewFormatDecoder.headerSize + range.lowerBound * size * 4
        let end = PreviewFormatDecoder.headerSize + range.upperBound * size * 4
        return body.subdata(in: start..<end)
    }

    @Test func previewsArriveBeforeTheFinalImageAndAreNeverStored() async throws {
        // Given an 8×8 image of the preview format, whose body the test sends piece by piece
        let fixture = try PreviewFixture()
        defer { fixture.directory.remove() }
        let (body, loader, manager, util) = (fixture.body, fixture.loader, fixture.manager, fixture.util)
        let request = AssetRequest(url: URL(string: "https://cdn.example.com/preview.tprv")!)

        // When a task with previews receives the header and two rows, then three more, then the rest
        let task = util.task(for: request, style: Self.style, previews: true)
        let collector = PreviewCollector.reading(task)
        fixture.sendHeader(withRows: 2)
        try await waitUntil("the first preview") { collector.received.count == 1 }
        #expect(!collector.isFinished)
        loader.send(Self.rows(2..<5, of: body))
        try await waitUntil("the second preview") { collector.received.count == 2 }
        #expect(task.progress?.receivedBytes == Int64(PreviewFormatDecoder.headerSize + 5 * Self.size * 4))
        loader.send(Self.rows(5..<8, of: body))
        loader.end()
        let result = try await task.result

        // Then two previews came, styled, and their stream ended before the final image was handed out
        #expect(collector.received.count == 2)
        try await waitUntil("the previews finished") { collector.isFinished }
        #expect(collector.received.allSatisfy { $0.width == 4 && $0.height == 4 })
        #expect(collector.received[0] != collector.received[1])
        #expect(!collector.received.contains(result.value))
        #expect(result.source == .network)
        #expect(loader.streamCount == 1)
        #expect(task.progress == FetchProgress(receivedBytes: Int64(body.count), expectedBytes: Int64(body.count)))

        // and what is stored is the final image, never a preview
        await manager.waitForPendingWrites()
        #expect(util.cachedImage(for: request, style: Self.style) == result.value)
        let variantKey = util.cacheKey(for: request, style: Self.style)
        let storedVariant = try #require(try await manager.readData(forKey: variantKey, storageType: .disk))
        #expect(try util.renderer.codecs.decode(storedVariant) == result.value)
        #expect(try await manager.readData(forKey: manager.cacheKey(for: request), storageType: .disk) == body)
    }

    @Test func aTruncatedDownloadWithPreviewsIsATypedErrorAndNothingIsStored() async throws {
        let fixture = try PreviewFixture()
        defer { fixture.directory.remove() }
        let (loader, manager, util) = (fixture.loader, fixture.manager, fixture.util)
        let request = AssetRequest(url: URL(string: "https://cdn.example.com/cut.tprv")!)

        // When the body ends after three of its eight rows
        let task = util.task(for: request, style: Self.style, previews: true)
        let collector = PreviewCollector.reading(task)
        fixture.sendHeader(withRows: 3)
        try await waitUntil("a preview") { collector.received.count == 1 }
        loader.end()

        // Then the task fails with the length mismatch, and nothing (preview or bytes) is kept
        await #expect(throws: AssetsError.self) { try await task.image }
        try await waitUntil("the previews finished") { collector.isFinished }
        await manager.waitForPendingWrites()
        #expect(util.cachedImage(for: request, style: Self.style) == nil)
        #expect(try await manager.readData(forKey: manager.cacheKey(for: request), storageType: .disk) == nil)
        let variantKey = util.cacheKey(for: request, style: Self.style)
        #expect(try await manager.readData(forKey: variantKey, storageType: .hybrid(.image)) == nil)
    }

    @Test func cancellingAHandleEndsItsTransfer() async throws {
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/cancel.jpg", try ImageUtilFixtures.gradientJPEG())
        harness.origin.setBehavior("/cancel.jpg", .init(stallAfterBodyBytes: 200))

        let task = harness.util.task(for: url, style: ImageUtilFixtures.circle)
        try await harness.origin.waitForRequests(path: "/cancel.jpg", count: 1)
        task.cancel()

        await #expect(throws: CancellationError.self) { try await task.image }
        try await harness.origin.waitUntilClientClosed(path: "/cancel.jpg")
        try await waitUntil("no flight left") { harness.util.pipeline.inFlightCount == 0 }
        #expect(harness.util.cachedImage(for: AssetRequest(url: url), style: ImageUtilFixtures.circle) == nil)
    }

    @Test func aHandleRaisesAndLowersThePrefetchItJoins() async throws {
        // Given a prefetch (low) of a styled image whose download is held
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/raise.jpg", try ImageUtilFixtures.gradientJPEG())
        harness.origin.setBehavior("/raise.jpg", .init(gated: true))
        let request = AssetRequest(url: url)
        let style = ImageUtilFixtures.circle
        let prefetcher = ImagePrefetcher(util: harness.util, style: style)
        prefetcher.startPrefetching(with: [url])
        try await harness.origin.waitForInFlight(path: "/raise.jpg", count: 1)
        let pipeline = harness.util.pipeline
        let variant = harness.util.formatted(style)  // the style in the util's variant format, as the flight is keyed
        #expect(pipeline.flightPriority(for: request, processor: variant, storageType: .hybrid(.image)) == .low)

        // When a row's task joins and its priority changes
        let task = harness.util.task(for: request, style: style)
        try await waitUntil("the row joined") { pipeline.statistics.joins == 1 }
        #expect(pipeline.flightPriority(for: request, processor: variant, storageType: .hybrid(.image)) == .normal)
        task.priority = .veryHigh
        #expect(task.priority == .veryHigh)
        #expect(pipeline.flightPriority(for: request, processor: variant, storageType: .hybrid(.image)) == .veryHigh)
        task.priority = .veryLow

        // Then the flight follows it, down to the prefetch's own priority, and drops when the row leaves
        #expect(pipeline.flightPriority(for: request, processor: variant, storageType: .hybrid(.image)) == .low)
        task.priority = .high
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.image }
        #expect(pipeline.flightPriority(for: request, processor: variant, storageType: .hybrid(.image)) == .low)
        harness.origin.release("/raise.jpg")
        try await waitUntil("prefetched") { prefetcher.statistics.completed == 1 }
        #expect(harness.origin.requestCount(for: "/raise.jpg") == 1)
    }
}
