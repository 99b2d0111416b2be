import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import SampleOrigin
import Synchronization
import TestSupport
import Testing

/// A feed preloaded around the item playing: nearest first, within the byte budget as the index moves, never
/// fetching a byte twice, and sharing its downloads with the player.
@Suite(
    "Feed preloading",
    .enabled(if: ChildProcess.executable("ffmpeg") != nil, "needs ffmpeg on PATH and its libraries (CI installs them)")
)
struct VideoPreloaderTests {
    /// A feed of `count` 10 s movies with their moov at the end (about 0.9 MB each), served at /feed/N.mp4.
    static func makeFeed(_ environment: OriginEnvironment, count: Int) async throws -> [AssetRequest] {
        let movie = try await VideoFrameTests.makeMovie(in: environment.directory.url)
        return (0..<count).map { index in
            // Each item is its own resource: the same bytes under its own path.
            AssetRequest(url: environment.serve("/feed/\(index).mp4", movie, contentType: "video/mp4"))
        }
    }

    /// Every update from `preloader`, recorded, with the budget checked at each one.
    final class Recorder: Sendable {
        let updates = Mutex<[VideoPreloader.Update]>([])
        let peakHeld = Mutex(0)

        /// Starts recording `preloader`'s updates (until it stops).
        static func recording(_ preloader: VideoPreloader) -> Recorder {
            let recorder = Recorder()
            let stream = preloader.updates()
            Task {
                for await update in stream {
                    recorder.updates.withLock { $0.append(update) }
                    let held = preloader.heldBytes
                    recorder.peakHeld.withLock { $0 = max($0, held) }
                }
            }
            return recorder
        }

        func states(of index: Int) -> [VideoPreloader.State] {
            updates.withLock { $0.filter { $0.index == index }.map(\.state) }
        }

        /// The indices in the order their preloads started.
        var started: [Int] {
            updates.withLock { updates in
                updates.filter { $0.state == .loading(bytes: 0) }.map(\.index)
            }
        }
    }

    /// A feed of `count` items whose second item's origin holds requests at a gate, a util of 64 KiB chunks, and
    /// a preloader of one item ahead.
    static func gatedFeed(
        count: Int
    ) async throws -> (OriginEnvironment, [AssetRequest], VideoUtil, VideoPreloader) {
        let environment = try OriginEnvironment()
        let feed = try await makeFeed(environment, count: count)
        var gated = SampleOrigin.Behavior.normal
        gated.gated = true
        environment.origin.setBehavior("/feed/1.mp4", gated)
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let preloader = VideoPreloader(video: video, configuration: .init(itemsAhead: 1, itemsBehind: 0))
        return (environment, feed, video, preloader)
    }

    static func isDone(_ state: VideoPreloader.State?) -> Bool {
        switch state {
        case .ready, .failed: return true
        default: return false
        }
    }

    /// The range starts asked of `path`; each appears once when nothing was fetched twice.
    static func rangeStarts(_ origin: SampleOrigin, _ path: String) -> [Int] {
        origin.requests(for: path).compactMap { $0.headers["range"] }.compactMap {
            Int($0.dropFirst(6).prefix { $0 != "-" })
        }
    }

    @Test func theNearestItemsArePreloadedFirstWithinTheBudget() async throws {
        // Given a feed of 6 movies, 64 KiB chunks, and a preloader of 2 ahead and 1 behind, one at a time,
        // 2 seconds of each within 600 KiB
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let feed = try await Self.makeFeed(environment, count: 6)
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let preloader = VideoPreloader(
            video: video,
            configuration: .init(
                itemsAhead: 2, itemsBehind: 1, amount: .seconds(2), byteBudget: 600 << 10, concurrency: 1))
        let recorder = Recorder.recording(preloader)
        defer { preloader.stop() }

        // When the feed starts at item 2
        preloader.setCurrentIndex(2)
        preloader.setItems(feed)
        try await waitUntil("items 3, 1 and 4 preloaded") {
            [3, 1, 4].allSatisfy { Self.isDone(preloader.state(at: $0)) }
        }

        // Then they started nearest first, ahead before behind
        #expect(recorder.started == [3, 1, 4], "\(recorder.started)")
        for index in [3, 1, 4] {
            guard case .ready(let bytes) = preloader.state(at: index) else {
                Issue.record("item \(index): \(String(describing: preloader.state(at: index)))")
                continue
            }
            // Each took at most its share (600 KiB / 3 items), and something
            #expect(bytes > 0 && bytes <= 200 << 10, "item \(index): \(bytes) B")
        }
        // And the budget held at every update, and items outside the window were never asked
        #expect(recorder.peakHeld.withLock { $0 } <= 600 << 10)
        #expect(preloader.heldBytes <= 600 << 10)
        for index in [0, 2, 5] {
            #expect(environment.origin.requestCount(for: "/feed/\(index).mp4") == 0, "item \(index)")
        }
    }

    @Test func theBudgetHoldsAsTheIndexMovesAndNoByteIsFetchedTwice() async throws {
        // Given a feed of 8 movies and a preloader of 2 ahead and 1 behind within 400 KiB, two at a time
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let feed = try await Self.makeFeed(environment, count: 8)
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let preloader = VideoPreloader(
            video: video,
            configuration: .init(
                itemsAhead: 2, itemsBehind: 1, amount: .seconds(3), byteBudget: 400 << 10, concurrency: 2))
        let recorder = Recorder.recording(preloader)
        defer { preloader.stop() }
        preloader.setItems(feed)

        // When the user swipes from item 0 to item 6, the player reading each item's first 128 KiB, and swiping
        // on before some preloads end
        for index in 0...6 {
            preloader.setCurrentIndex(index)
            _ = try await video.data(for: feed[index], range: 0..<(128 << 10))
            if index % 2 == 0 {
                try await waitUntil("the window around \(index) preloaded") {
                    [index + 1, index + 2].filter { $0 < feed.count }.allSatisfy {
                        Self.isDone(preloader.state(at: $0))
                    }
                }
            }
        }
        await video.waitForPendingStores()

        // Then the budget held at every update
        #expect(recorder.peakHeld.withLock { $0 } <= 400 << 10)
        // And no chunk of any item was fetched twice, though items were preloaded, played and preloaded again
        for index in 0..<feed.count {
            let starts = Self.rangeStarts(environment.origin, "/feed/\(index).mp4")
            #expect(Set(starts).count == starts.count, "item \(index): \(starts)")
        }
        // And items that left the window hold nothing
        #expect(preloader.state(at: 0) == nil)
        #expect(preloader.state(at: 4) == nil)
    }

    @Test func aPreloadIsSharedWithThePlayer() async throws {
        // Given a feed whose second item's origin holds requests at a gate
        let (environment, feed, video, preloader) = try await Self.gatedFeed(count: 2)
        defer {
            preloader.stop()
            environment.tearDown()
        }

        // When the preloader starts item 1 and, while its first request waits at the gate, the player swipes
        // to it and reads its head
        preloader.setItems(feed)
        preloader.setCurrentIndex(0)
        try await environment.origin.waitForRequests(path: "/feed/1.mp4", count: 1)
        preloader.setCurrentIndex(1)
        let player = Task { try await video.data(for: feed[1], range: 0..<(64 << 10)) }
        try await waitUntil("the player joined the preload's request") { video.statistics.fetchesJoined >= 1 }
        environment.origin.setBehavior("/feed/1.mp4", .normal)
        let head = try await player.value
        try await waitUntil("the preload ended") { Self.isDone(preloader.state(at: 1)) }
        await video.waitForPendingStores()

        // Then the player got its bytes from the preload's download: every byte was asked once
        #expect(head.count == 64 << 10)
        let starts = Self.rangeStarts(environment.origin, "/feed/1.mp4")
        #expect(Set(starts).count == starts.count, "\(starts)")
        #expect(video.statistics.fetchesJoined >= 1)
    }

    @Test func withoutFFmpegSecondsFallBackToTheirByteCount() async throws {
        // Given a util whose FFmpeg libraries cannot be found
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let feed = try await Self.makeFeed(environment, count: 2)
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        var missing = FFmpegLibrary.Candidate.release(avformatMajor: 59, debianPackage: "libavformat59")
        missing.avformat = "libavformat-hidden-by-a-test.so.59"
        video.frameLibraryOverride.withLock { $0 = FFmpegLibrary.load([missing]) }
        let preloader = VideoPreloader(
            video: video,
            configuration: .init(itemsAhead: 1, itemsBehind: 0, amount: .seconds(3, fallbackBytes: 200_000)))
        defer { preloader.stop() }

        // When item 1 is preloaded
        preloader.setItems(feed)
        preloader.setCurrentIndex(0)
        try await waitUntil("item 1 preloaded") { Self.isDone(preloader.state(at: 1)) }

        // Then its first 3 whole chunks (192 KiB, the most under 200,000 bytes) were cached
        #expect(preloader.state(at: 1) == .ready(bytes: 3 * (64 << 10)))
        await video.waitForPendingStores()
        #expect(Self.rangeStarts(environment.origin, "/feed/1.mp4").allSatisfy { $0 < 3 * (64 << 10) })
    }

    @Test func postersOfTheWindowAreTakenWithinEachItemsShare() async throws {
        // Given a preloader that takes a 64 px poster at 1 s of each item
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let feed = try await Self.makeFeed(environment, count: 3)
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let style: ImageProcessors.Resize = .resize(size: PixelSize(width: 64, height: 64))
        let preloader = VideoPreloader(
            video: video,
            configuration: .init(
                itemsAhead: 2, itemsBehind: 0, amount: .seconds(2), byteBudget: 1 << 20,
                posterPosition: .time(.seconds(1)), posterStyle: style))
        defer { preloader.stop() }

        // When items 1 and 2 are preloaded
        preloader.setItems(feed)
        preloader.setCurrentIndex(0)
        try await waitUntil("items 1 and 2 preloaded") { [1, 2].allSatisfy { Self.isDone(preloader.state(at: $0)) } }
        await video.waitForPendingStores()

        // Then their posters are cached: asking for them decodes and fetches nothing more
        let decoded = video.statistics.framesDecoded
        let requests = environment.origin.requestCount(for: "/feed/1.mp4")
        let poster = try await video.frame(for: feed[1], at: .time(.seconds(1)), style: style)
        #expect(poster.height == 64)
        #expect(decoded == 2)
        #expect(video.statistics.framesDecoded == decoded)
        #expect(environment.origin.requestCount(for: "/feed/1.mp4") == requests)
        // And each item's preload and poster together stayed within its share of the budget
        for index in [1, 2] {
            guard case .ready(let bytes) = preloader.state(at: index) else {
                Issue.record("item \(index): \(String(describing: preloader.state(at: index)))")
                continue
            }
            #expect(bytes > 0 && bytes <= (1 << 20) / 2, "item \(index): \(bytes) B")
        }
    }

    @Test func aPreloadCancelledMidChunkKeepsThatChunk() async throws {
        // Given a feed whose second item's origin holds requests at a gate, and a preloader of one item ahead
        let (environment, feed, video, preloader) = try await Self.gatedFeed(count: 4)
        defer {
            preloader.stop()
            environment.tearDown()
        }

        // When item 1's preload has its probe answered and its next block's request held at the gate
        preloader.setItems(feed)
        preloader.setCurrentIndex(0)
        try await environment.origin.waitForInFlight(path: "/feed/1.mp4", count: 1)
        environment.origin.release("/feed/1.mp4")
        try await environment.origin.waitForRequests(path: "/feed/1.mp4", count: 2)
        try await environment.origin.waitForInFlight(path: "/feed/1.mp4", count: 1)
        let held = try #require(environment.origin.requests(for: "/feed/1.mp4").last?.headers["range"])
        // And the user swipes past it, so its preload is cancelled, then the held request goes on
        preloader.setCurrentIndex(2)
        try await waitUntil("item 1's preload cancelled") { preloader.state(at: 1) == nil }
        environment.origin.setBehavior("/feed/1.mp4", .normal)
        try await waitUntil("the held request answered") { environment.origin.inFlight(for: "/feed/1.mp4") == 0 }
        await video.waitForPendingStores()

        // Then the chunk it was fetching was kept: reading it asks the origin nothing more, and no range of the
        // item was asked twice
        let requests = environment.origin.requestCount(for: "/feed/1.mp4")
        let start = try #require(Int(held.dropFirst(6).prefix { $0 != "-" }))
        _ = try await video.data(for: feed[1], range: start..<(start + 1))
        #expect(environment.origin.requestCount(for: "/feed/1.mp4") == requests, "held \(held)")
        let starts = Self.rangeStarts(environment.origin, "/feed/1.mp4")
        #expect(Set(starts).count == starts.count, "\(starts)")
    }

    @Test func anHLSItemPreloadsTheSegmentsOfItsFirstSeconds() async throws {
        // Given a feed of a file and an HLS stream of 2 s segments, and a preloader given an HLSUtil
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let feed = try await Self.makeFeed(environment, count: 1)
        let file = environment.directory.url.appendingPathComponent("movie.mp4")
        let stream = try await VideoFrameTests.cutHLS(file, in: environment.directory.url)
        let paths = try environment.origin.registerDirectory(stream, at: "/hls")
        let items = feed + [AssetRequest(url: environment.origin.url(for: "/hls/index.m3u8"))]
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let preloader = VideoPreloader(
            video: video, hls: HLSUtil(manager: environment.manager),
            configuration: .init(itemsAhead: 1, itemsBehind: 0, amount: .seconds(3)))
        defer { preloader.stop() }

        // When the stream is the next item
        preloader.setItems(items)
        preloader.setCurrentIndex(0)
        try await waitUntil("the stream preloaded") { Self.isDone(preloader.state(at: 1)) }

        // Then its first two segments (0 to 4 s) were fetched, no other, and they are its ready bytes
        let asked = paths.filter { environment.origin.requestCount(for: $0) > 0 && $0.hasSuffix(".ts") }.sorted()
        #expect(asked == ["/hls/index0.ts", "/hls/index1.ts"], "\(asked)")
        let sizes = try ["index0.ts", "index1.ts"].map {
            try Data(contentsOf: stream.appendingPathComponent($0)).count
        }
        #expect(preloader.state(at: 1) == .ready(bytes: sizes.reduce(0, +)))
    }
}
