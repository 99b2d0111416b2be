import Foundation
import MediaAssets

extension ImageUtil {
    /// Steps 3 and 4: the original's bytes, from storage or the network, decoded toward `targetSize`.
    ///
    /// A decoded original kept in memory that covers `targetSize` is used without reading or decoding
    /// anything, so the styles of one image cost one decode. A decode toward a larger size already under
    /// way for the same original is joined: its result still covers `targetSize`. A download is decoded before the manager stores it, so undecodable bytes are
    /// never cached; stored bytes that fail to decode are removed before the error is thrown.
    func decodedOriginal(
        _ request: AssetRequest, targetSize: PixelSize?, layout: StorageLayout
    ) async throws -> DecodedOriginal {
        let originalKey = manager.cacheKey(for: request)
        if let kept = try await keptOriginal(originalKey, covering: targetSize, policy: request.cachePolicy, in: layout) {
            return DecodedOriginal(image: kept.image, entry: nil, fetched: false, freshUntil: kept.freshUntil)
        }
        let source = OriginalSource(
            originalKey: originalKey, storageType: layout.bytes, cachePolicy: request.cachePolicy
        )
        let decodeSize = decodeSizes.withLock { $0._enter(source, target: targetSize) }
        defer { decodeSizes.withLock { $0._leave(source, size: decodeSize) } }
        let key = OriginalKey(source: source, targetSize: decodeSize)
        return try await originals.value(for: key, priority: request.priority.taskPriority) { [self] _ in
            let decodeDownload: @Sendable (Data) throws -> DecodedObject = { [self] data in
                do {
                    let image = try renderer.decode(data, targetSize: decodeSize)
                    counters.withLock { $0.decodes += 1 }
                    return DecodedObject(image, cost: image.cost)
                } catch let error as ImageError {
                    throw ImageUtilError.undecodable(url: request.url, key: originalKey, reason: error)
                }
            }
            let (entry, fetched) = try await originalEntry(
                request, key: originalKey, layout: layout, decode: decodeDownload
            )
            let freshUntil = entry.metadata.freshUntil
            if fetched, let image = entry.decoded?.value as? Image {
                await keep(image, originalKey: originalKey, targetSize: decodeSize, freshUntil: freshUntil, in: layout)
                return DecodedOriginal(image: image, entry: entry, fetched: fetched, freshUntil: freshUntil)
            }
            do {
                let image = try renderer.decode(entry.data, targetSize: decodeSize)
                counters.withLock { $0.decodes += 1 }
                await keep(image, originalKey: originalKey, targetSize: decodeSize, freshUntil: freshUntil, in: layout)
                return DecodedOriginal(image: image, entry: entry, fetched: fetched, freshUntil: freshUntil)
            } catch let error as ImageError {
                try? await manager.removeData(forKey: originalKey, storageType: layout.bytes)
                if let memory = layout.memory, memory != layout.bytes {
                    try? await manager.removeData(forKey: originalKey, storageType: memory)
                }
                throw ImageUtilError.undecodable(url: request.url, key: originalKey, reason: error)
            }
        }
    }

    /// The original's entry: a fresh stored one (a disk hit), else the manager's fetch (which revalidates a
    /// stale one and coalesces downloads).
    private func originalEntry(
        _ request: AssetRequest, key: CacheKey, layout: StorageLayout,
        decode: @escaping @Sendable (Data) throws -> DecodedObject
    ) async throws -> (CacheEntry, fetched: Bool) {
        let policy = request.cachePolicy
        if policy == .useCache || policy == .cacheOnly,
            let stored = try await manager.entry(forKey: key, storageType: layout.bytes),
            policy.accepts(stored, at: manager.configuration.now())
        {
            counters.withLock { $0.diskHits += 1 }
            return (stored, false)
        }
        if policy == .cacheOnly { throw AssetsError.notCached(key: key) }
        counters.withLock { $0.networkFetches += 1 }
        return (try await manager.entry(for: request, storageType: layout.bytes, decode: decode), true)
    }

    /// The key of the decoded original kept in memory.
    private func keptOriginalKey(_ originalKey: CacheKey) -> CacheKey { originalKey.variant("decoded") }

    /// The downsampled original kept in memory, if it is at least `targetSize` in both dimensions.
    /// Only styles with a target size use it (`.original` needs the full image and its bytes).
    private func keptOriginal(
        _ originalKey: CacheKey, covering targetSize: PixelSize?, policy: AssetRequest.CachePolicy,
        in layout: StorageLayout
    ) async throws -> (image: Image, freshUntil: Date?)? {
        guard let targetSize, let memory = layout.memory,
            let entry = try await manager.entry(forKey: keptOriginalKey(originalKey), storageType: memory),
            policy.accepts(entry, at: manager.configuration.now()),
            let image = entry.decoded?.value as? Image,
            image.width >= targetSize.width, image.height >= targetSize.height
        else { return nil }
        return (image, entry.metadata.freshUntil)
    }

    /// Keeps a downsampled original in memory (never on disk) for the other styles of the same image.
    private func keep(
        _ image: Image, originalKey: CacheKey, targetSize: PixelSize?, freshUntil: Date?, in layout: StorageLayout
    ) async {
        guard targetSize != nil, let memory = layout.memory else { return }
        let metadata = CacheMetadata(created: manager.configuration.now(), freshUntil: freshUntil)
        let entry = CacheEntry(data: Data(), metadata: metadata, decoded: DecodedObject(image, cost: image.cost))
        try? await manager.store(entry, forKey: keptOriginalKey(originalKey), storageType: memory)
    }
}
