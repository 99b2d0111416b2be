import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@testable import MediaAssetsImage

/// The defects the staged pipeline fixed, each reproduced the way a user met it.
@Suite("Pipeline defects: joins, explicit hybrids, user memory backends")
struct PipelineDefectTests {
    /// A 640×640 noisy photo: a 40 px circle decodes it at 1/8 (80 px), a 96 px one at 2/8 (160 px).
    static func detailedPhoto() throws -> Data {
        try ImageEncoder.jpeg(ProcessingFixtures.noise(width: 640, height: 640), quality: 92)
    }

    @Test("a 96 px ask that joins a 40 px fetch is as sharp as a 96 px render alone, and so is its stored variant")
    func largerStyleJoiningSmallerDecode() async throws {
        // Given a 40 px ask holding the download at the origin's gate
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let photo = try Self.detailedPhoto()
        let url = harness.serve("/photo.jpg", photo)
        harness.origin.setBehavior("/photo.jpg", SampleOrigin.Behavior(gated: true))
        let util = harness.util
        async let small = util.image(for: url, style: .circle(diameter: 40))
        try await harness.origin.waitForInFlight(path: "/photo.jpg", count: 1)

        // When a 96 px ask comes while the download is under way
        async let large = util.image(for: url, style: .circle(diameter: 96))
        try await waitUntil("the large ask joined the download") { harness.manager.fetchStatistics.joins == 1 }
        harness.origin.release("/photo.jpg")
        let (largeImage, _) = try await (large, small)
        await harness.manager.waitForPendingWrites()

        // Then it equals a 96 px render made alone, and so does the variant stored for later asks
        let style = AvatarStyle.circle(diameter: 96)
        let solo = try style.process(try util.renderer.decode(photo, targetSize: style.targetSize))
        #expect(Self.psnr(largeImage, solo) >= 40)
        let variantKey = util.cacheKey(for: AssetRequest(url: url), style: style)
        let stored = try #require(try await harness.manager.readData(forKey: variantKey, storageType: .disk))
        #expect(Self.psnr(try util.renderer.decode(stored, targetSize: nil), solo) >= 40)
        #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
    }

    @Test("a backend registered for .hybrid(.image) is read as well as written: a variant is rendered once")
    func explicitHybridRegistration() async throws {
        // Given a hybrid of the app's own parts registered for .hybrid(.image)
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let disk = try DiskCache(configuration: .init(directory: harness.directory.appending("own-disk")))
        let hybrid = TieredBackend(memory: MemoryCache(limits: .init(costLimit: 64 << 20)), storage: disk)
        harness.manager.register(hybrid, for: .hybrid(.image))
        let util = harness.util
        _ = try await util.image(for: url, style: .circle(diameter: 96))
        await harness.manager.waitForPendingWrites()

        // When memory is trimmed and the style is asked again
        await harness.manager.trimMemory()
        _ = try await util.image(for: url, style: .circle(diameter: 96))

        // Then the stored variant was found in the registered backend: decoded, not rendered again
        #expect(util.statistics.processes == 1)
        #expect(util.statistics.storageHits == 1)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 1)
        #expect(await disk.statistics().count >= 2)
    }

    @Test("a TieredBackend registered for .hybrid(.image) serves memory hits; originals stay out of its memory tier")
    func tieredBackendAsHybrid() async throws {
        // Given memory → disk as a TieredBackend for .hybrid(.image)
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let memory = MemoryCache(limits: .init(costLimit: 64 << 20))
        let disk = try DiskCache(configuration: .init(directory: harness.directory.appending("tiered-disk")))
        harness.manager.register(TieredBackend(tiers: [memory, disk], partition: .image), for: .hybrid(.image))
        let util = harness.util

        // When a style is asked twice
        _ = try await util.image(for: url, style: .circle(diameter: 96))
        let again = try await util.imageResult(for: AssetRequest(url: url), style: .circle(diameter: 96))
        await harness.manager.waitForPendingWrites()

        // Then the second ask was a memory hit, the original's bytes are on disk only, with the partition
        #expect(again.source == .memory)
        let originalKey = harness.manager.cacheKey(for: AssetRequest(url: url))
        #expect(memory.cachedEntry(forKey: originalKey) == nil)
        #expect(try await disk.entry(forKey: originalKey)?.metadata.partition == .image)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 1)
    }

    @Test("a memory backend of the user's own gets memory hits and setAvatar's instant delivery")
    func userMemoryBackend() async throws {
        // Given the image partition replaced by a user-written memory backend
        let harness = try ImageUtilHarness()
        defer { harness.tearDown() }
        let url = harness.serve("/avatar.jpg", try ImageUtilFixtures.gradientJPEG())
        let memory = DictionaryMemoryBackend()
        harness.manager.register(memory, for: .lru(.image))
        let util = harness.util
        let avatar = TestAvatar(url: url)
        _ = try await util.avatar(avatar)

        // When the avatar is set again
        let deliveries = Recorder<Image>()
        let binding = util.setAvatar(avatar) { deliveries.append($0) }

        // Then it was delivered before setAvatar returned, from the user's backend
        #expect(deliveries.all.count == 1)
        #expect(binding.isCancelled == false)
        #expect(util.statistics.memoryHits == 1)
        #expect(memory.hits > 0)
        #expect(harness.origin.requestCount(for: "/avatar.jpg") == 1)
    }

    /// PSNR in dB over the colour channels of two images of one size (infinity when equal).
    static func psnr(_ image: Image, _ reference: Image) -> Double {
        guard image.width == reference.width, image.height == reference.height else { return 0 }
        var squaredError = 0.0
        var samples = 0
        for index in stride(from: 0, to: image.pixels.count, by: 4) {
            for channel in 0..<3 {
                let difference = Double(image.pixels[index + channel]) - Double(reference.pixels[index + channel])
                squaredError += difference * difference
                samples += 1
            }
        }
        guard squaredError > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squaredError / Double(samples)))
    }
}

/// A memory backend written the way a user would: a dictionary under a lock, no LRU, no limit.
final class DictionaryMemoryBackend: DecodedObjectCaching {
    private let entries = Mutex([CacheKey: CacheEntry]())
    private let hitCount = Mutex(0)

    var hits: Int { hitCount.withLock { $0 } }

    func cachedEntry(forKey key: CacheKey) -> CacheEntry? {
        let entry = entries.withLock { $0[key] }
        if entry != nil { hitCount.withLock { $0 += 1 } }
        return entry
    }

    func insert(_ entry: CacheEntry, forKey key: CacheKey) { entries.withLock { $0[key] = entry } }
    func trim(toCost cost: Int) { if cost == 0 { entries.withLock { $0.removeAll() } } }
    func entry(forKey key: CacheKey) async throws -> CacheEntry? { cachedEntry(forKey: key) }
    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { insert(entry, forKey: key) }
    func removeEntry(forKey key: CacheKey) async throws { _ = entries.withLock { $0.removeValue(forKey: key) } }
    func removeAll() async throws { entries.withLock { $0.removeAll() } }
    func statistics() async -> CacheStatistics {
        var statistics = CacheStatistics()
        statistics.count = entries.withLock { $0.count }
        return statistics
    }
}
