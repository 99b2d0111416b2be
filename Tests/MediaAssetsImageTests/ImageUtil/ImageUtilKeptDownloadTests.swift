import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@testable import MediaAssetsImage

/// Rows cancelled after their bytes arrived: the bytes are kept, so scrolling back fetches nothing again.
@Suite("ImageUtil: rows cancelled after their bytes arrived keep them")
struct ImageUtilKeptDownloadTests {
    /// A util over a manager with one decode slot, which the test holds while rows come and go.
    struct Harness {
        let directory: TemporaryDirectory
        let origin: SampleOrigin
        let manager: AssetsManager
        let util: ImageUtil

        init() throws {
            directory = try TemporaryDirectory("ImageUtilKeptDownloadTests")
            origin = SampleOrigin()
            try origin.start()
            manager = try AssetsManager.forTesting(directory: directory, stageLimits: .init(decodes: 1))
            util = ImageUtil(manager: manager)
        }

        /// Holds the decode slot until the returned gate opens.
        func holdDecodes() async throws -> (gate: AsyncGate, holder: Task<Void, Error>) {
            let gate = AsyncGate()
            let holding = SharedCount()
            let holder = Task {
                try await manager.runtime.decodeLimiter.run {
                    holding.add()
                    await gate.wait()
                }
            }
            try await waitUntil("the decode slot is held") { holding.value == 1 }
            return (gate, holder)
        }

        func tearDown() {
            origin.stop()
            directory.remove()
        }
    }

    @Test("a task cancelled once its progress reached 1.0, then asked again: one origin request, a storage hit")
    func cancelledAtFullProgressThenAskedAgain() async throws {
        // Given a photo, and decodes held so that the cancel lands after the bytes arrived and before the decode
        let harness = try Harness()
        defer { harness.tearDown() }
        let url = harness.origin.url(for: "/photo.jpg")
        harness.origin.register("/photo.jpg", data: try ImageUtilFixtures.gradientJPEG(), contentType: "image/jpeg")
        let (gate, holder) = try await harness.holdDecodes()

        // When a row's task reaches progress 1.0 and is cancelled while its decode waits
        let task = harness.util.task(for: url, style: ImageUtilFixtures.circle)
        try await waitUntil("the bytes arrived and the decode waits") {
            task.progress?.fractionCompleted == 1 && harness.manager.runtime.decodeLimiter.waitingCount == 1
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.image }

        // And the row comes back
        let again = harness.util.task(for: url, style: ImageUtilFixtures.circle)
        await gate.open()
        try await holder.value
        let result = try await again.result

        // Then the photo was downloaded once, and the second ask read the kept bytes
        #expect(result.source == .storage)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
        await harness.manager.waitForPendingWrites()
        #expect(harness.util.statistics.storageHits == 1)
    }

    @Test("a fling over 60 photos whose downloads finished, then scrolling back over them: 60 origin requests")
    func flingThenScrollBack() async throws {
        // Given 60 photos, and decodes held while the list flings past them
        let harness = try Harness()
        defer { harness.tearDown() }
        let jpeg = try ImageUtilFixtures.gradientJPEG()
        let urls = (0..<60).map { index in
            harness.origin.register("/photo-\(index).jpg", data: jpeg, contentType: "image/jpeg")
            return harness.origin.url(for: "/photo-\(index).jpg")
        }
        let style = ImageUtilFixtures.circle
        let (gate, holder) = try await harness.holdDecodes()

        // When rows appear one after another, six on screen, each letting its download finish, and each row that
        // scrolls off is cancelled; the fling ends past all of them
        var onScreen: [ImageTask] = []
        var cancelled: [ImageTask] = []
        for (index, url) in urls.enumerated() {
            let task = harness.util.task(for: AssetRequest(url: url, priority: .high), style: style)
            try await waitUntil("row \(index)'s bytes arrived") { task.progress?.fractionCompleted == 1 }
            onScreen.append(task)
            if onScreen.count > 6 {
                let offScreen = onScreen.removeFirst()
                offScreen.cancel()
                cancelled.append(offScreen)
            }
        }
        for task in onScreen { task.cancel() }
        cancelled += onScreen
        for task in cancelled { await #expect(throws: CancellationError.self) { try await task.image } }
        await gate.open()
        try await holder.value
        await harness.manager.waitForPendingWrites()

        // And the list scrolls back over all 60
        var sources: [AssetSource] = []
        for url in urls {
            sources.append(try await harness.util.imageResult(for: AssetRequest(url: url), style: style).source)
        }

        // Then every photo was downloaded once, and every row read its kept bytes
        #expect(harness.origin.totalRequestCount == 60)
        #expect(sources.allSatisfy { $0 == .storage })
        #expect(harness.util.statistics.storageHits == 60)
    }
}
