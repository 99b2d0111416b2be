import Foundation
import MediaAssets

extension ImageUtil {
    /// Every frame of the image at `request` (a GIF, an animated WebP; a still image is one frame).
    ///
    /// Runs on the same staged pipeline as still images (`animationPipeline`): the bytes are fetched and
    /// cached like any original, the decoded `AnimatedImage` is kept in the memory tier of `storageType`,
    /// charged at `AnimatedImage.cost` (all frames). The decoders refuse animations over
    /// `configuration.decodingOptions.maxFrameCount` or `maxAnimationPixelCount` before decoding, and
    /// bytes that fail to decode are never stored.
    ///
    /// - Throws: `ImageUtilError.undecodable`, or the manager's fetch errors.
    public func animatedImage(
        for request: AssetRequest, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        try await animationPipeline.value(for: request, options: DefaultDecodeOptions(), storageType: storageType).value
    }

    /// The animation at `request` with every frame in `style` (a circle-cropped animated avatar), cached as
    /// an animated WebP variant under `<key>@<style>,animated-webp` with the decoded frames kept in memory.
    ///
    /// - Throws: `ImageUtilError.undecodable`, `ImageProcessingError`, or the manager's errors.
    public func animatedImage(
        for request: AssetRequest, style: some ImageProcessing, storageType: StorageType = .hybrid(.image)
    ) async throws -> AnimatedImage {
        try (style as? AvatarStyle)?.validate()
        do {
            return try await animationPipeline.value(
                for: request, processor: AnimatedStyle(style: style), options: DefaultDecodeOptions(),
                storageType: storageType
            ).value
        } catch AssetsError.processingFailed(_, let processor, let reason) {
            throw ImageUtilError.renderingFailed(url: request.url, style: processor, reason: reason)
        }
    }
}
