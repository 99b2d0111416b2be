import Foundation
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loader that holds each response after its whole body arrived, until the test opens its gate: the moment
/// between a download's last byte and its flight's return, held open. The hold ignores cancellation.
final class HeldResponseLoader: DataLoading {
    private let inner = URLSessionLoader.forTesting(maxResponseSize: 256 << 20)
    private let gate = AsyncGate()
    /// Responses whose body arrived and that are held now.
    let held = SharedCount()

    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
        let response = try await inner.load(request, progress: progress)
        held.add()
        await gate.wait()
        return response
    }

    func stream(_ request: URLRequest) async throws -> StreamedResponse { try await inner.stream(request) }

    /// Lets every held response, and those to come, return.
    func open() async { await gate.open() }
}

/// Holds the only decode slot of a manager built with `StageLimits(decodes: 1)` until `open()`.
struct DecodeHold {
    private let gate = AsyncGate()
    private let task: Task<Void, Error>

    init(_ manager: AssetsManager) async throws {
        let holding = SharedCount()
        let gate = self.gate
        task = Task {
            try await manager.runtime.decodeLimiter.run {
                holding.add()
                await gate.wait()
            }
        }
        try await waitUntil("the decode slot is held") { holding.value == 1 }
    }

    func open() async throws {
        await gate.open()
        try await task.value
    }
}

@Suite("Bytes that arrived are kept when every asker left")
struct KeptDownloadTests {
    static let text = String(repeating: "a photo's bytes ", count: 8_192)

    /// A text pipeline behind a `HeldResponseLoader`, whose only ask for `/photo.txt` was cancelled once the body
    /// arrived, before the download's flight returned (the loader still holds it).
    struct AbandonedAfterArrival {
        let loader = HeldResponseLoader()
        let environment: OriginEnvironment
        let pipeline: AssetPipeline<TextDecoder>
        let request: AssetRequest

        init() async throws {
            environment = try OriginEnvironment(loader: loader)
            pipeline = AssetPipeline(manager: environment.manager, decoder: TextDecoder())
            request = AssetRequest(url: environment.serve("/photo.txt", Data(KeptDownloadTests.text.utf8)))
            let (loader, pipeline, request) = (loader, pipeline, request)
            let first = Task { try await pipeline.value(for: request, options: .init(), storageType: .disk) }
            do {
                try await waitUntil("the body arrived") { loader.held.value == 1 }
            } catch {
                environment.tearDown()
                throw error
            }
            first.cancel()
            await #expect(throws: CancellationError.self) { try await first.value }
        }
    }

    @Test("an ask cancelled after its bytes arrived, while its decode waits, keeps them: the next is a storage hit")
    func cancelledWhileDecodeWaitsKeepsBytes() async throws {
        // Given a manager with one decode slot, held, and a resource of 128 KiB
        let environment = try OriginEnvironment(stageLimits: .init(decodes: 1))
        defer { environment.tearDown() }
        let pipeline = AssetPipeline(manager: environment.manager, decoder: TextDecoder())
        let url = environment.serve("/photo.txt", Data(Self.text.utf8))
        let request = AssetRequest(url: url)
        let hold = try await DecodeHold(environment.manager)

        // When an ask's progress reaches 1.0 and its decode waits, and it is cancelled then
        let progress = Mutex<Double>(0)
        let first = Task {
            try await pipeline.value(for: request, options: .init(), storageType: .disk) { report in
                progress.withLock { $0 = report.fractionCompleted ?? 0 }
            }
        }
        try await waitUntil("the bytes arrived and the decode waits") {
            progress.withLock { $0 } == 1 && environment.manager.runtime.decodeLimiter.waitingCount == 1
        }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }

        // And the same request is asked again
        let second = Task { try await pipeline.value(for: request, options: .init(), storageType: .disk) }
        try await hold.open()
        let result = try await second.value

        // Then the origin served one request, and the second ask read the kept bytes
        #expect(result.source == .storage)
        #expect(result.value == Self.text)
        #expect(environment.origin.requestCount(for: "/photo.txt") == 1)
        await environment.manager.waitForPendingWrites()
        #expect(try await environment.isOnDisk("/photo.txt"))
        #expect(pipeline.statistics.storageHits == 1)
    }

    @Test("a download whose body arrived as its last asker left is validated and stored in the background")
    func abandonedDownloadIsStored() async throws {
        // Given a loader that holds each response once its body arrived, when the only ask is cancelled after the
        // body arrived, before the download's flight returned
        let abandoned = try await AbandonedAfterArrival()
        let (environment, pipeline, request) = (abandoned.environment, abandoned.pipeline, abandoned.request)
        defer { environment.tearDown() }
        await abandoned.loader.open()
        await environment.manager.waitForPendingWrites()

        // Then the bytes were validated and written, and asking again reads them without a second request
        #expect(try await environment.isOnDisk("/photo.txt"))
        let result = try await pipeline.value(for: request, options: .init(), storageType: .disk)
        #expect(result.source == .storage)
        #expect(environment.origin.requestCount(for: "/photo.txt") == 1)
        #expect(pipeline.statistics.networkFetches == 1)
        #expect(pipeline.statistics.storageHits == 1)
        #expect(environment.manager.stagedWriteBytes == 0)
    }

    @Test("an ask made while a download its askers left is still ending waits for it, and reads its bytes")
    func askDuringAnAbandonedDownloadReadsItsBytes() async throws {
        // Given a loader that holds each response once its body arrived, when the only ask is cancelled after the
        // body arrived and the same request is asked again before the abandoned download has returned (a row
        // scrolled off and straight back)
        let abandoned = try await AbandonedAfterArrival()
        let (environment, pipeline, request) = (abandoned.environment, abandoned.pipeline, abandoned.request)
        defer { environment.tearDown() }
        let second = Task { try await pipeline.value(for: request, options: .init(), storageType: .disk) }
        try await waitUntil("the second ask's fetch is under way") {
            environment.manager.runtime.requestPool.inFlightCount == 1
        }
        await abandoned.loader.open()
        let result = try await second.value

        // Then the origin served one request: the second ask read the bytes the abandoned download kept
        #expect(result.value == Self.text)
        #expect(result.source == .storage)
        #expect(environment.origin.requestCount(for: "/photo.txt") == 1)
        await environment.manager.waitForPendingWrites()
        #expect(try await environment.isOnDisk("/photo.txt"))
    }

    @Test("bytes that do not decode are not stored when their askers left; those that decode are")
    func undecodableAbandonedBytesAreNotStored() async throws {
        // Given two resources behind a loader that holds responses: one decodes (UTF-8), one does not
        let loader = HeldResponseLoader()
        let environment = try OriginEnvironment(loader: loader)
        defer { environment.tearDown() }
        let pipeline = AssetPipeline(manager: environment.manager, decoder: TextDecoder())
        let good = environment.serve("/good.txt", Data(Self.text.utf8))
        let bad = environment.serve("/bad.txt", Data([0xFF, 0xFE, 0xFD, 0x80]) + Data(Self.text.utf8))

        // When both asks are cancelled after their bodies arrived
        let asks = [good, bad].map { url in
            Task { try await pipeline.value(for: AssetRequest(url: url), options: .init(), storageType: .disk) }
        }
        try await waitUntil("both bodies arrived") { loader.held.value == 2 }
        for ask in asks { ask.cancel() }
        for ask in asks { await #expect(throws: CancellationError.self) { try await ask.value } }
        await loader.open()
        await environment.manager.waitForPendingWrites()

        // Then the decodable bytes are stored, the undecodable ones are not, and nothing stays staged
        #expect(try await environment.isOnDisk("/good.txt"))
        #expect(try await !environment.isOnDisk("/bad.txt"))
        #expect(environment.manager.stagedWriteBytes == 0)
        #expect(pipeline.statistics.undecodable == 1)
        #expect(pipeline.statistics.decodes == 1)
    }

    @Test("abandoned bytes are kept only within the staged-write bound; the rest are dropped and counted")
    func abandonedBytesRespectTheStagedWriteBound() async throws {
        // Given room for three staged entries, a backend that holds every store, and a loader that holds responses
        let loader = HeldResponseLoader()
        let origin = SampleOrigin()
        try origin.start()
        defer { origin.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let size = Self.text.utf8.count
        let manager = try AssetsManager.forTesting(directory: directory, loader: loader, stagedWriteLimit: 3 * size)
        let disk = HeldStores()
        manager.register(disk, for: .custom("slow"))
        let pipeline = AssetPipeline(manager: manager, decoder: TextDecoder())
        let paths = (0..<8).map { "/photo-\($0).txt" }
        for path in paths { origin.register(path, data: Data(Self.text.utf8), contentType: "text/plain") }

        // When eight asks are cancelled after their bodies arrived
        let asks = paths.map { path in
            Task {
                try await pipeline.value(
                    for: AssetRequest(url: origin.url(for: path)), options: .init(), storageType: .custom("slow"))
            }
        }
        try await waitUntil("eight bodies arrived") { loader.held.value == 8 }
        for ask in asks { ask.cancel() }
        for ask in asks { await #expect(throws: CancellationError.self) { try await ask.value } }
        await loader.open()

        // Then three are kept (validated, their stores held) and five are dropped, never past the bound
        try await waitUntil("three stores held, five downloads dropped") {
            disk.heldCount == 3 && manager.fetchStatistics.abandonedDownloadsDropped == 5
        }
        #expect(manager.stagedWriteBytes == 3 * size)
        #expect(manager.runtime.pendingWrites.peakStagedBytes == 3 * size)

        // And once the backend catches up, exactly those three are stored
        disk.releaseAll()
        await manager.waitForPendingWrites()
        #expect(await disk.inner.keys.count == 3)
        #expect(manager.stagedWriteBytes == 0)
        #expect(origin.totalRequestCount == 8)
    }
}
