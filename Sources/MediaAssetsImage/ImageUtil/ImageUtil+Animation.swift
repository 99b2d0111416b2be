import Foundation
import MediaAssets

extension ImageUtil {
    /// Every frame of the image at `request` (a GIF, an animated WebP; a still image is one frame).
    ///
    /// The bytes are fetched and cached like any original; the decoded `AnimatedImage` is kept beside them in
    /// the memory partition of `storageType`, charged at `AnimatedImage.cost` (all frames). The decoders refuse
    /// animations over `configuration.decodingOptions.maxFrameCount` or `maxAnimationPixelCount`, and bytes
    /// that fail to decode are never stored.
    ///
    /// - Throws: `ImageUtilError.undecodable`, or the manager's fetch errors.
    public func animatedImage(
        for request: AssetRequest, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        let codecs = configuration.codecs
        let options = configuration.decodingOptions
        let key = manager.cacheKey(for: request)
        do {
            let decode: @Sendable (Data) throws -> DecodedObject = { data in
                let animation = try codecs.decodeAnimation(data, options: options)
                return DecodedObject(animation, cost: animation.cost)
            }
            let entry = try await manager.entry(for: request, storageType: storageType, decode: decode)
            if let animation = entry.decoded?.value as? AnimatedImage { return animation }
            return try codecs.decodeAnimation(entry.data, options: options)
        } catch let error as ImageError {
            throw ImageUtilError.undecodable(url: request.url, key: key, reason: error)
        }
    }

    /// The animation at `request` with every frame in `style` (a circle-cropped animated avatar), cached as an
    /// animated WebP variant under `<key>@<style>,animated-webp` with the decoded frames kept in memory.
    ///
    /// - Throws: `ImageUtilError.undecodable`, `ImageProcessingError`, `ImageError` (WebP encoding), or the
    ///   manager's errors.
    public func animatedImage(
        for request: AssetRequest, style: AvatarStyle, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        let variantKey = manager.cacheKey(for: request).variant(style.identifier + ",animated-webp")
        if let stored = try await manager.entry(forKey: variantKey, storageType: storageType) {
            if let animation = stored.decoded?.value as? AnimatedImage { return animation }
            let options = configuration.decodingOptions
            if let animation = try? configuration.codecs.decodeAnimation(stored.data, options: options) {
                return animation
            }
        }
        let styled = try await animatedImage(for: request, storageType: storageType).processed(by: style)
        let data = try WebPEncoder(compression: .lossy(quality: 80)).encode(styled)
        let metadata = CacheMetadata(created: manager.configuration.now(), contentType: ImageFormat.webp.mimeType)
        let entry = CacheEntry(data: data, metadata: metadata, decoded: DecodedObject(styled, cost: styled.cost))
        try await manager.store(entry, forKey: variantKey, storageType: storageType)
        return styled
    }
}
