import Foundation
import MediaAssets

extension ImageUtil {
    /// The frames of the animation at `request` (a GIF, an animated WebP; a still image is one frame),
    /// decoded ahead in a bounded `window` at the smallest size covering `targetSize` (full size when `nil`):
    /// a player iterates it and shows each frame for its duration.
    ///
    /// The bytes come through the manager like any image's (one download, stored in `storageType` once their
    /// headers check out, the file kept in memory beside them); no frame is decoded before iterating starts.
    /// Each frame is composited on one canvas at the file's size and reduced as it is made, one frame per hop,
    /// each taking a slot of the manager's decode limiter at the request's priority (or, iterated for a handle,
    /// the handle's priority as it is then). A frame that fails to
    /// decode ends the sequence with `ImageUtilError.undecodable`, and the stored bytes are removed.
    ///
    /// ```swift
    /// for try await frame in try await images.animationFrames(for: request, targetSize: .square(200)) {
    ///     show(frame.image)
    ///     try await Task.sleep(for: frame.duration)
    /// }
    /// ```
    ///
    /// - Throws: `ImageUtilError.undecodable` (unknown, cut or oversized files), or the manager's errors.
    public func animationFrames(
        for request: AssetRequest, targetSize: PixelSize? = nil, window: AnimationFrameWindow = .init(),
        storageType: StorageType? = nil
    ) async throws -> AnimationFrames {
        let storageType = storageType ?? configuration.storageType
        let original = try await animationSource(for: request, storageType: storageType)
        var options = configuration.decodingOptions
        options.targetSize = targetSize
        let production = frameProduction(
            of: original.value, options: options, request: request, style: nil,
            discarding: originalKeys(for: request), storageType: storageType
        )
        return AnimationFrames(info: original.value.info, window: window, production: production)
    }

    /// The frames of the animation at `request` in `style` (a circle-cropped animated avatar), decoded ahead in
    /// a bounded `window`.
    ///
    /// Served from the stored styled variant (an animated WebP under `<key>@<style>,animated-webp`, shared with
    /// `animatedImage(for:style:)`) when there is one; otherwise each frame of the original is reduced toward
    /// the style's size, styled, and encoded into that variant one frame at a time while it first plays (no
    /// array of frames is ever built), and the variant is stored once a whole pass has played. `info` describes
    /// the file the frames come from: the variant, or the original.
    ///
    /// - Throws: `AssetProcessingError` for an invalid `AvatarStyle`, `ImageUtilError.undecodable`, or the
    ///   manager's errors; a style that throws on a frame ends the sequence with `AssetProcessingError`.
    public func animationFrames(
        for request: AssetRequest, style: some ImageProcessing, window: AnimationFrameWindow = .init(),
        storageType: StorageType? = nil
    ) async throws -> AnimationFrames {
        let storageType = storageType ?? configuration.storageType
        let variantKey = manager.cacheKey(for: request).variant(AnimatedStyle(style: style).identifier)
        try validate(style, for: request, key: variantKey)
        var options = configuration.decodingOptions
        if let variant = try await storedAnimationVariant(variantKey, request: request, storageType: storageType) {
            let production = frameProduction(
                of: variant, options: options, request: request, style: nil, discarding: [variantKey],
                storageType: storageType
            )
            return AnimationFrames(info: variant.info, window: window, production: production)
        }
        let original = try await animationSource(for: request, storageType: storageType)
        options.targetSize = style.targetSize
        options.regionOfInterest = style.regionOfInterest
        var production = frameProduction(
            of: original.value, options: options, request: request, style: style,
            discarding: originalKeys(for: request), storageType: storageType
        )
        let metadata = Self.variantMetadata(from: original.metadata, now: manager.configuration.now())
        production.variant = AnimationFrameProduction.Variant(encoder: WebPEncoder(compression: .lossy(quality: 80))) {
            [manager] data in
            try? await manager.storeInBackground(
                CacheEntry(data: data, metadata: metadata), forKey: variantKey, storageType: storageType
            )
        }
        return AnimationFrames(info: original.value.info, window: window, production: production)
    }

    /// The original's bytes checked from their headers, through a pipeline whose fetch flights and kept
    /// sources live in the manager (so a pipeline made per call shares downloads and memory hits).
    private func animationSource(
        for request: AssetRequest, storageType: StorageType
    ) async throws -> AssetResult<AnimationSource> {
        let decoder = AnimationSourceDecoder(codecs: configuration.codecs, options: configuration.decodingOptions)
        return try await AssetPipeline(manager: manager, decoder: decoder).value(
            for: request, options: DefaultDecodeOptions(), storageType: storageType
        )
    }

    /// A stored styled variant the request's cache policy accepts and whose headers check out.
    private func storedAnimationVariant(
        _ key: CacheKey, request: AssetRequest, storageType: StorageType
    ) async throws -> AnimationSource? {
        guard request.cachePolicy == .useCache || request.cachePolicy == .cacheOnly,
            let entry = try await manager.cachedEntry(forKey: key, storageType: storageType),
            request.cachePolicy.accepts(entry, at: manager.configuration.now()), !entry.data.isEmpty,
            let info = try? configuration.codecs.animationInfo(of: entry.data)
        else { return nil }
        return AnimationSource(data: entry.data, info: info)
    }

    /// The keys of an original's bytes and of the source kept in memory beside them.
    private func originalKeys(for request: AssetRequest) -> [CacheKey] {
        let originalKey = manager.cacheKey(for: request)
        let decoder = AnimationSourceDecoder(codecs: configuration.codecs, options: configuration.decodingOptions)
        return [originalKey, AssetPipeline(manager: manager, decoder: decoder).decodedKey(originalKey)]
    }

    /// Decoding of `source`'s frames on the manager's executor, through its decode limiter; a frame that fails to
    /// decode removes the entries under `discarding` (so the next ask fetches anew) and ends the sequence with the
    /// util's error.
    private func frameProduction(
        of source: AnimationSource, options: ImageDecodingOptions, request: AssetRequest,
        style: (any ImageProcessing)?, discarding keys: [CacheKey], storageType: StorageType
    ) -> AnimationFrameProduction {
        var production = AnimationFrameProduction(
            data: source.data, info: source.info, options: options, codecs: configuration.codecs
        )
        production.work = AnimationFrameWork(
            limiter: manager.runtime.decodeLimiter, executor: manager.runtime.executor,
            priority: LivePriority(request.priority))
        if let style { production.style = { try style.process($0) } }
        production.failure = { [manager] error in
            if error is CancellationError { return error }
            guard let reason = error as? ImageError else {
                return AssetProcessingError(
                    key: keys[0], url: request.url, processor: style?.identifier ?? "original", underlying: error)
            }
            for key in keys { try? await manager.removeData(forKey: key, storageType: storageType) }
            return ImageUtilError.undecodable(url: request.url, key: keys[0], reason: reason)
        }
        return production
    }

    /// A variant's metadata: as fresh as its original, made now, with no validators of its own.
    static func variantMetadata(from original: CacheMetadata, now: Date) -> CacheMetadata {
        var metadata = original
        metadata.created = now
        metadata.lastAccess = now
        metadata.etag = nil
        metadata.lastModified = nil
        metadata.contentType = ImageFormat.webp.mimeType
        return metadata
    }
}
