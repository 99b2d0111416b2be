import Foundation
import MediaAssets

extension ImageUtil {
    /// The placeholder of the image at `request` — a ThumbHash and the image's exact average colour — if
    /// its original has been downloaded, read from the cache without decoding the original (about 30
    /// bytes). Render `placeholder.image()` (at most 32×32) or fill with `averageColor` while the image loads.
    ///
    /// Placeholders are made when an original is first downloaded and decoded, off the caller's path (in the
    /// manager's background work, which `AssetsManager.shutdown()` awaits, on its executor), and stored beside
    /// it under `<key>@placeholder`, as fresh as the original. When that decode kept only a style's region of
    /// interest, the placeholder is made from the original's bytes by a small decode of the whole image
    /// (in one low-priority slot of the manager's process limiter).
    public func placeholder(
        for request: AssetRequest, storageType: StorageType? = nil
    ) async throws -> ImagePlaceholder? {
        let storageType = storageType ?? configuration.storageType
        let key = manager.cacheKey(for: request).variant(Self.placeholderIdentifier)
        guard let entry = try await manager.cachedEntry(forKey: key, storageType: storageType),
            entry.data.count > 4
        else { return nil }
        let bytes = [UInt8](entry.data)
        let color = RGBA(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes[3])
        return try? ImagePlaceholder(thumbHash: entry.data.dropFirst(4), averageColor: color)
    }

    static let placeholderIdentifier = "placeholder"

    /// Computes and stores the placeholder of a freshly downloaded original, in the background, once: from
    /// `original` when it is the whole image, else from the original's stored bytes.
    func makePlaceholder(
        for request: AssetRequest, from original: Image?, metadata: CacheMetadata, storageType: StorageType
    ) {
        let key = manager.cacheKey(for: request).variant(Self.placeholderIdentifier)
        guard placeholdersUnderWay.withLock({ $0.insert(key).inserted }) else { return }
        manager.runtime.runInBackground(priority: .utility) { [self] in
            defer { placeholdersUnderWay.withLock { _ = $0.remove(key) } }
            // One low-priority slot from reading the original to hashing it: the placeholders of a burst wait
            // before they hold bytes or pixels, not after.
            let made = try? await manager.runtime.processLimiter.run(priority: .low) {
                () async throws -> ImagePlaceholder? in
                let bytes = original == nil ? await placeholderSourceBytes(for: request, storageType: storageType) : nil
                guard original != nil || bytes != nil else { return nil }
                return try await manager.runtime.runOnExecutor { [renderer] in
                    try ImagePlaceholder(image: original ?? renderer.decode(bytes ?? Data(), targetSize: .square(100)))
                }
            }
            guard let placeholder = made ?? nil else { return }
            let color = placeholder.averageColor
            var stored = metadata
            stored.contentType = "application/x-thumbhash"
            let data = Data([color.red, color.green, color.blue, color.alpha]) + placeholder.thumbHash
            try? await manager.storeInBackground(
                CacheEntry(data: data, metadata: stored), forKey: key, storageType: storageType)
        }
    }

    /// The original's bytes in the byte tiers of `storageType` (not promoted into memory) or still being
    /// written, to decode the whole image small enough for a placeholder (it shrinks images to 100 px).
    private func placeholderSourceBytes(for request: AssetRequest, storageType: StorageType) async -> Data? {
        let key = manager.cacheKey(for: request)
        guard let backend = try? manager.backend(for: storageType) else { return nil }
        var entry = try? await (backend as? any TieredCaching)?.storedEntry(forKey: key)
        if entry == nil { entry = try? await manager.cachedEntry(forKey: key, storageType: storageType) }
        guard let bytes = entry?.data, !bytes.isEmpty else { return nil }
        return bytes
    }
}
