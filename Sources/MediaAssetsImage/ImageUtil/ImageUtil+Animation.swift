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
        for request: AssetRequest, targetSize: PixelSize? = nil, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        try await animationPipeline.value(for: request, options: targetSize, storageType: storageType).value
    }

    /// The animation at `request` with every frame in `style` (a circle-cropped animated avatar), decoded
    /// toward the style's size, cached as an animated WebP variant under `<key>@<style>,animated-webp` with the
    /// styled frames kept in memory.
    ///
    /// - Throws: `ImageUtilError.undecodable`, `ImageProcessingError`, or the manager's errors.
    public func animatedImage(
        for request: AssetRequest, style: some ImageProcessing, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        try (style as? AvatarStyle)?.validate()
        do {
            return try await animationPipeline.value(
                for: request, processor: AnimatedStyle(style: style), options: style.targetSize,
                storageType: storageType
            ).value
        } catch AssetsError.processingFailed(_, let processor, let reason) {
            throw ImageUtilError.renderingFailed(url: request.url, style: processor, reason: reason)
        }
    }
}
