import MediaAssets

extension ImageUtil {
    /// Returns `avatar` in its style, looking in memory, then the app's styled image, then
    /// the app's original (styled here), then the normal lookup and the network.
    ///
    /// After rendering the style from a downloaded or stored original, calls
    /// `avatar.save(originalImage:styledImage:)` so the app can keep both. Uses
    /// `configuration.storageType`.
    ///
    /// - Throws: as `image(for:style:storageType:)`.
    public func avatar(_ avatar: some Avatar) async throws -> Image {
        let request = AssetRequest(url: avatar.url, version: avatar.version)
        let style = avatar.style
        let storageType = configuration.storageType
        if let image = cachedImage(for: request, style: style, storageType: storageType) { return image }
        if let styled = avatar.localStyledImage { return styled }
        if let original = avatar.localOriginalImage {
            do {
                let styled = try await manager.runtime.processLimiter.run {
                    try await manager.runtime.runOnExecutor { try renderer.render(original, style: style) }
                }
                avatarRenders.withLock { $0 += 1 }
                return styled
            } catch let error as CancellationError {
                avatarCancellations.withLock { $0 += 1 }
                throw error
            } catch {
                avatarFailures.withLock { $0 += 1 }
                throw AssetProcessingError(
                    key: cacheKey(for: request, style: style), url: avatar.url, processor: style.identifier,
                    underlying: error)
            }
        }
        let result = try await imageResult(for: request, style: style, storageType: storageType)
        // Rendered now from a decoded original: hand both to the app's own store.
        if let original = result.original {
            avatar.save(originalImage: original, styledImage: result.value)
        }
        return result.value
    }

    /// Shows `avatar` through `deliver`, as an image view that sets an avatar does.
    ///
    /// Before returning, delivers the image memory holds, or else the placeholder (if any). Otherwise the
    /// final image follows from a background task. A failure delivers nothing more (the placeholder
    /// stays); call `avatar(_:)` to see the error. Cancel the returned binding when the consumer is reused.
    public func setAvatar(_ avatar: some Avatar, deliver: @escaping @Sendable (Image) -> Void) -> AvatarBinding {
        let request = AssetRequest(url: avatar.url, version: avatar.version)
        let binding = AvatarBinding()
        if let image = cachedImage(for: request, style: avatar.style, storageType: configuration.storageType) {
            deliver(image)
            return binding
        }
        if let placeholder = avatar.placeholderImage { deliver(placeholder) }
        let task = Task { [self] in
            guard let image = try? await self.avatar(avatar) else { return }
            binding.deliver(image, to: deliver)
        }
        binding.attach(task)
        return binding
    }
}
