import Foundation
import MediaAssets

extension ImageUtil {
    /// The lookup of the type's documentation, with where the image came from.
    func rendition(for request: AssetRequest, style: AvatarStyle, storageType: StorageType) async throws -> Rendition {
        do {
            try style.validate()
            let layout = StorageLayout(storageType)
            let variantKey = cacheKey(for: request, style: style)
            if let image = try await decodedImage(forKey: variantKey, in: layout, policy: request.cachePolicy) {
                counters.withLock { $0.memoryHits += 1 }
                return Rendition(image: image, source: .memory)
            }
            let key = RenditionKey(variantKey: variantKey, storageType: storageType, cachePolicy: request.cachePolicy)
            return try await renditions.value(for: key, priority: request.priority.taskPriority) { [self] _ in
                try await render(request, style: style, variantKey: variantKey, layout: layout)
            }
        } catch {
            if !(error is CancellationError) { counters.withLock { $0.failures += 1 } }
            throw error
        }
    }

    /// One render flight: steps 1 (again, for a flight that just finished) to 4.
    private func render(
        _ request: AssetRequest, style: AvatarStyle, variantKey: CacheKey, layout: StorageLayout
    ) async throws -> Rendition {
        let policy = request.cachePolicy
        if let image = try await decodedImage(forKey: variantKey, in: layout, policy: policy) {
            counters.withLock { $0.memoryHits += 1 }
            return Rendition(image: image, source: .memory)
        }
        if style != .original, let image = try await storedVariant(forKey: variantKey, in: layout, policy: policy) {
            return Rendition(image: image, source: .storedVariant)
        }
        let original = try await decodedOriginal(request, targetSize: style.targetSize, layout: layout)
        if style == .original {
            // The original's bytes stay where the fetch put them; memory gets them with the bitmap beside.
            if let entry = original.entry {
                try? await remember(original.image, entry: entry, forKey: variantKey, in: layout)
            }
            let source = Rendition.Source.original(fetched: original.fetched)
            return Rendition(image: original.image, source: source, original: original.image)
        }
        let styled: Image
        do {
            styled = try renderer.render(original.image, style: style)
        } catch {
            throw ImageUtilError.renderingFailed(url: request.url, style: style.identifier, reason: "\(error)")
        }
        counters.withLock { $0.renders += 1 }
        let encoded = try renderer.encode(styled)
        // A variant is as fresh as its original: once stale, it is made again from the revalidated original.
        let metadata = CacheMetadata(
            created: manager.configuration.now(), freshUntil: original.freshUntil, contentType: encoded.format.mimeType
        )
        let decoded = DecodedObject(styled, cost: styled.cost)
        let entry = CacheEntry(data: encoded.data, metadata: metadata, decoded: decoded)
        do {
            try await manager.store(entry, forKey: variantKey, storageType: layout.variants)
        } catch {
            // The caller already has the image; a full disk must not fail it.
            counters.withLock { $0.storeFailures += 1 }
        }
        return Rendition(image: styled, source: .original(fetched: original.fetched), original: original.image)
    }

    /// Step 1: the decoded image memory keeps beside the bytes of `key`, if `policy` lets it answer.
    private func decodedImage(
        forKey key: CacheKey, in layout: StorageLayout, policy: AssetRequest.CachePolicy
    ) async throws -> Image? {
        guard let memory = layout.memory, let entry = try await manager.entry(forKey: key, storageType: memory),
            policy.accepts(entry, at: manager.configuration.now())
        else { return nil }
        return entry.decoded?.value as? Image
    }

    /// Step 2: the stored variant's bytes, decoded and kept in memory. A variant that no longer decodes is
    /// removed, so it is rendered again.
    private func storedVariant(
        forKey key: CacheKey, in layout: StorageLayout, policy: AssetRequest.CachePolicy
    ) async throws -> Image? {
        guard let entry = try await manager.entry(forKey: key, storageType: layout.bytes),
            policy.accepts(entry, at: manager.configuration.now())
        else { return nil }
        let image: Image
        do {
            image = try renderer.decode(entry.data, targetSize: nil)
        } catch {
            try? await manager.removeData(forKey: key, storageType: layout.variants)
            return nil
        }
        counters.withLock {
            $0.decodes += 1
            $0.diskHits += 1
        }
        try? await remember(image, entry: entry, forKey: key, in: layout)
        return image
    }

    /// Keeps `image` in the memory partition beside `entry`'s bytes (nothing when there is no memory part).
    private func remember(
        _ image: Image, entry: CacheEntry, forKey key: CacheKey, in layout: StorageLayout
    ) async throws {
        guard let memory = layout.memory else { return }
        var entry = entry
        entry.decoded = DecodedObject(image, cost: image.cost)
        try await manager.store(entry, forKey: key, storageType: memory)
    }
}
