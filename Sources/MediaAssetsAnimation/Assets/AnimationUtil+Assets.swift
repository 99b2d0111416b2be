import Foundation
import MediaAssets
import MediaAssetsImage

extension AnimationUtil {
    /// What concurrent loads of one animation with its assets coalesce on.
    struct LoadFlightKey: Hashable, Sendable {
        var key: CacheKey
        var storageType: StorageType
        var cachePolicy: AssetRequest.CachePolicy
    }

    /// Returns the animation at `url` with its image assets decoded; see
    /// `loadedAnimation(for:options:storageType:)`.
    public func loadedAnimation(
        for url: URL, options: AnimationAssetOptions = .init(), storageType: StorageType? = nil
    ) async throws -> LoadedAnimation {
        let storageType = storageType ?? configuration.storageType
        return try await loadedAnimationResult(for: AssetRequest(url: url), options: options, storageType: storageType)
            .value
    }

    /// Returns the animation of `request` ready to draw: the parsed model and every image asset decoded.
    ///
    /// ```
    /// memory <key>@assets(…) ─ hit: done, nothing awaited
    ///  └─ load flight (key, storage, policy)
    ///      ├─ the JSON: fetched and parsed by the animation pipeline (not kept alone in memory)
    ///      └─ each image asset, concurrently: u + p through ImageUtil (coalesced and cached like any
    ///         image, under options.imageStorageType) or the data URL decoded by the format plugins
    /// ```
    /// The result is kept in `storageType`'s memory tier as one entry charged the model and its bitmaps
    /// (`LoadedAnimation.estimatedMemoryCost`), as fresh as the animation's JSON.
    ///
    /// - Throws: `AnimationAssetError` naming the first failing asset in document order (unless
    ///   `options.failurePolicy` asks for placeholders), `LottieError` for invalid JSON, `AssetsError`
    ///   for fetch failures of the JSON, `CancellationError`.
    public func loadedAnimation(
        for request: AssetRequest, options: AnimationAssetOptions = .init(), storageType: StorageType? = nil
    ) async throws -> LoadedAnimation {
        let storageType = storageType ?? configuration.storageType
        return try await loadedAnimationResult(for: request, options: options, storageType: storageType).value
    }

    /// Returns the loaded animation with where its JSON came from (memory, storage, network, stale).
    public func loadedAnimationResult(
        for request: AssetRequest, options: AnimationAssetOptions = .init(), storageType: StorageType? = nil
    ) async throws -> AssetResult<LoadedAnimation> {
        let storageType = storageType ?? configuration.storageType
        let key = loadedKey(for: request, options: options)
        if let hit = cachedLoadedAnimation(key, storageType: storageType, policy: request.cachePolicy) {
            assetCounters.withLock { $0.memoryHits += 1 }
            return hit
        }
        let flightKey = LoadFlightKey(key: key, storageType: storageType, cachePolicy: request.cachePolicy)
        return try await loads.value(for: flightKey, priority: request.priority.taskPriority) { [self] _ in
            if let hit = cachedLoadedAnimation(key, storageType: storageType, policy: request.cachePolicy) {
                return hit
            }
            let model = try await animationsWithAssets.value(
                for: request, options: DefaultDecodeOptions(), storageType: storageType
            )
            let loaded = try await loadAssets(of: model.value, relativeTo: request.url, options: options)
            let entry = CacheEntry(
                data: Data(), metadata: model.metadata,
                decoded: DecodedObject(loaded, cost: loaded.estimatedMemoryCost)
            )
            manager.decodedObjectCache(for: storageType)?.insert(entry, forKey: key)
            assetCounters.withLock { $0.loads += 1 }
            return AssetResult(value: loaded, source: model.source, metadata: model.metadata)
        }
    }

    /// The loaded animation of `request` if memory holds one, without waiting, reading or decoding.
    public func cachedLoadedAnimation(
        for request: AssetRequest, options: AnimationAssetOptions = .init(), storageType: StorageType? = nil
    ) -> LoadedAnimation? {
        let storageType = storageType ?? configuration.storageType
        let key = loadedKey(for: request, options: options)
        return cachedLoadedAnimation(key, storageType: storageType, policy: request.cachePolicy)?.value
    }

    /// The memory key of a loaded animation: `<key>@<options>,<image decoder>`, so loads with other
    /// failure policies or image decoders never share an entry.
    func loadedKey(for request: AssetRequest, options: AnimationAssetOptions) -> CacheKey {
        // One allocation: a memory hit builds this key.
        let original = manager.cacheKey(for: request).rawValue
        var key = String()
        key.reserveCapacity(original.utf8.count + options.identifier.utf8.count + imageDecoderIdentifier.utf8.count + 2)
        key += original
        key += "@"
        key += options.identifier
        key += ","
        key += imageDecoderIdentifier
        return CacheKey(key)
    }

    private func cachedLoadedAnimation(
        _ key: CacheKey, storageType: StorageType, policy: AssetRequest.CachePolicy
    ) -> AssetResult<LoadedAnimation>? {
        guard let memory = manager.decodedObjectCache(for: storageType), let entry = memory.cachedEntry(forKey: key),
            policy.accepts(entry, at: manager.configuration.now()),
            let loaded = entry.decoded?.value as? LoadedAnimation
        else { return nil }
        return AssetResult(value: loaded, source: .memory, metadata: entry.metadata)
    }

    // MARK: Images

    /// Decodes the image assets of an animation you already hold (read from a dotLottie archive or a
    /// bundle), concurrently: external ones through `images`, embedded ones by the format plugins.
    ///
    /// The result is not kept in memory (the images are, by `ImageUtil`); failures are thrown, first in
    /// document order, or replaced by placeholders as `options` says.
    ///
    /// - Parameters:
    ///   - animation: the parsed animation whose image assets to decode.
    ///   - baseURL: what `u` + `p` are resolved against (the animation's URL).
    ///   - options: the failure policy and where images are cached.
    public func loadAssets(
        of animation: LottieDocument, relativeTo baseURL: URL, options: AnimationAssetOptions = .init()
    ) async throws -> LoadedAnimation {
        let assets = animation.imageAssets
        let outcomes = try await withThrowingTaskGroup(
            of: (Int, Result<LoadedImageAsset, AnimationAssetError>).self
        ) { group in
            for (index, asset) in assets.enumerated() {
                group.addTask { [self] in
                    (index, try await loadImage(asset, animation: animation, baseURL: baseURL, options: options))
                }
            }
            var outcomes = [Result<LoadedImageAsset, AnimationAssetError>?](repeating: nil, count: assets.count)
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        var images: [LoadedImageAsset] = []
        var failures: [AnimationAssetError] = []
        for (asset, outcome) in zip(assets, outcomes) {
            switch (outcome, options.failurePolicy) {
            case let (.success(image), _):
                images.append(image)
            case let (.failure(error), .fail):
                throw error
            case let (.failure(error), .placeholder(maximumSide)):
                failures.append(error)
                images.append(Self.placeholder(for: asset, maximumSide: maximumSide))
            }
        }
        return LoadedAnimation(animation: animation, images: images, failures: failures)
    }

    /// One asset: a typed failure as a value, so every asset is tried; cancellation is thrown.
    private func loadImage(
        _ asset: LottieImageAsset, animation: LottieDocument, baseURL: URL, options: AnimationAssetOptions
    ) async throws -> Result<LoadedImageAsset, AnimationAssetError> {
        if asset.isEmbedded {
            guard let data = asset.embeddedData() else { return .failure(.invalidDataURL(assetID: asset.id)) }
            do {
                let image = try await manager.runtime.decodeLimiter.run {
                    try await manager.runtime.runOnExecutor {
                        try images.configuration.codecs.decode(data, options: images.configuration.decodingOptions)
                    }
                }
                return .success(LoadedImageAsset(assetID: asset.id, origin: .embedded, image: image))
            } catch let error as ImageError {
                return .failure(.undecodable(assetID: asset.id, url: nil, reason: error))
            }
        }
        guard let url = animation.externalImageURL(of: asset, relativeTo: baseURL) else {
            return .failure(.invalidReference(assetID: asset.id, reference: (asset.directory ?? "") + asset.path))
        }
        do {
            let image = try await images.image(for: url, storageType: options.imageStorageType)
            return .success(LoadedImageAsset(assetID: asset.id, origin: .external(url), image: image))
        } catch let error as CancellationError {
            throw error
        } catch {
            return .failure(Self.assetError(error, assetID: asset.id, url: url))
        }
    }

    /// The asset error for what `ImageUtil` threw.
    static func assetError(_ error: any Error, assetID: String, url: URL) -> AnimationAssetError {
        switch error {
        case let AssetsError.httpStatus(code, _):
            return .missing(assetID: assetID, url: url, status: code)
        case let ImageUtilError.undecodable(_, _, reason):
            return .undecodable(assetID: assetID, url: url, reason: reason)
        case let error as ImageError:
            return .undecodable(assetID: assetID, url: url, reason: error)
        default:
            let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            return .fetchFailed(assetID: assetID, url: url, reason: reason)
        }
    }

    /// A transparent image of the asset's declared size, each side clamped to 1...`maximumSide`.
    static func placeholder(for asset: LottieImageAsset, maximumSide: Int) -> LoadedImageAsset {
        let limit = max(1, maximumSide)
        func side(_ value: Double?) -> Int {
            guard let value, value.isFinite, value >= 1 else { return 1 }
            return Int(min(value, Double(limit)))
        }
        let image = Image(width: side(asset.width), height: side(asset.height))
        return LoadedImageAsset(assetID: asset.id, origin: .placeholder, image: image)
    }
}

/// What `AnimationUtil`'s asset loads did, counted.
struct AnimationAssetCounters: Sendable {
    var loads = 0
    var memoryHits = 0
}
