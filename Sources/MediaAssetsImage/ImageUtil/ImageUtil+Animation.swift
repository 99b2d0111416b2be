import Foundation
import MediaAssets

extension ImageUtil {
    /// Every frame of the image at `request` (a GIF, an animated WebP; a still image is one frame), each
    /// reduced to the smallest size covering `targetSize` as it is composited (full size when `nil`).
    ///
    /// For small animations: the value holds every frame. Runs on the same staged pipeline as still images
    /// (`animationPipeline`): the bytes are fetched and cached like any original, the decoded `AnimatedImage` is
    /// kept in the memory tier of `storageType`, charged at `AnimatedImage.cost` (all frames). An animation
    /// whose frame count or pixels of all frames are over `configuration.decodingOptions.maxFrameCount` or
    /// `maxAnimationPixelCount` is refused from its headers before any frame is decoded, and bytes that fail
    /// to decode are never stored. To play a long or large animation, use `animationFrames(for:targetSize:)`.
    ///
    /// - Throws: `ImageUtilError.undecodable`, or the manager's fetch errors.
    public func animatedImage(
        for request: AssetRequest, targetSize: PixelSize? = nil, storageType: StorageType? = nil
    ) async throws -> AnimatedImage {
        let storageType = storageType ?? configuration.storageType
        return try await animationPipeline.value(for: request, options: targetSize, storageType: storageType).value
    }

    /// The animation at `request` with every frame in `style` (a circle-cropped animated avatar), decoded
    /// toward the style's size, cached as an animated WebP variant under `<key>@<style>,animated-webp` with the
    /// styled frames kept in memory.
    ///
    /// - Throws: `ImageUtilError.undecodable`, `AssetProcessingError` (a style that cannot be drawn, or fails on
    ///   a frame), or the manager's errors.
    public func animatedImage(
        for request: AssetRequest, style: some ImageProcessing, storageType: StorageType? = nil
    ) async throws -> AnimatedImage {
        let storageType = storageType ?? configuration.storageType
        let processor = AnimatedStyle(style: style)
        try validate(style, for: request, key: processor.variantKey(of: manager.cacheKey(for: request)))
        return try await naming(style) {
            try await animationPipeline.value(
                for: request, processor: processor, options: style.targetSize, storageType: storageType
            ).value
        }
    }
}
