import Foundation
import MediaAssets
import MediaAssetsImage

extension AnimationUtil {
    /// Writes the animation of `request` as a self-contained `.lottie` archive: its JSON with every image
    /// asset inlined as a data URL, so the archive plays with no network and no files beside it.
    ///
    /// The animation is loaded with its assets first (`loadedAnimation(for:options:storageType:)`), so
    /// every image is known to decode. External images are inlined as their original bytes, read back
    /// from `options.imageStorageType` (or the image util's, no second download while they are cached);
    /// placeholders as PNG.
    ///
    /// - Parameters:
    ///   - request: the animation's JSON.
    ///   - id: the animation's id in the manifest; by default the URL's file name without extension.
    ///   - options: the failure policy (placeholders are inlined as PNG) and where images are cached.
    ///   - storageType: where the animation is cached.
    ///   - layout: `.version1` (the default) is what python-lottie and older players read.
    /// - Throws: what `loadedAnimation` throws, and `DotLottieError.writeFailed`.
    public func exportDotLottie(
        for request: AssetRequest, id: String? = nil, options: AnimationAssetOptions = .init(),
        storageType: StorageType? = nil, layout: DotLottie.Layout = .version1
    ) async throws -> Data {
        let storageType = storageType ?? configuration.storageType
        let loaded = try await loadedAnimation(for: request, options: options, storageType: storageType)
        var inlined: [String: (mediaType: String, data: Data)] = [:]
        for asset in loaded.images {
            switch asset.origin {
            case .embedded:
                continue
            case .placeholder:
                let image = asset.image
                inlined[asset.assetID] = (
                    "image/png", try await manager.runtime.runOnExecutor { try ImageEncoder.png(image) }
                )
            case let .external(url):
                let entry = try await manager.entry(
                    for: AssetRequest(url: url),
                    storageType: options.imageStorageType ?? images.configuration.storageType)
                let mediaType =
                    ImageFormat.sniff(entry.data)?.mimeType ?? DotLottie.mediaType(forFileName: url.lastPathComponent)
                inlined[asset.assetID] = (mediaType, entry.data)
            }
        }
        // Rewriting the JSON with base64 images and deflating the archive are CPU work of the archive's size.
        let animation = try await manager.runtime.runOnExecutor {
            try loaded.animation.embeddingImages(options: configuration.parsingOptions) { location in
                location.id.flatMap { inlined[$0] }
            }
        }
        let animationID = id ?? Self.animationID(for: request.url)
        let archive = DotLottie(
            manifest: DotLottieManifest(
                version: layout == .version2 ? "2" : "1", generator: "MediaAssets",
                animations: [.init(id: animationID)], initialAnimationID: animationID
            ),
            animations: [DotLottieAnimation(id: animationID, animation: animation)], images: [:]
        )
        return try await manager.runtime.runOnExecutor { try archive.archiveData(layout: layout) }
    }

    /// Writes the archive of `url`; see `exportDotLottie(for:id:options:storageType:layout:)`.
    public func exportDotLottie(
        for url: URL, id: String? = nil, options: AnimationAssetOptions = .init(),
        storageType: StorageType? = nil, layout: DotLottie.Layout = .version1
    ) async throws -> Data {
        let storageType = storageType ?? configuration.storageType
        return try await exportDotLottie(
            for: AssetRequest(url: url), id: id, options: options, storageType: storageType, layout: layout
        )
    }

    /// The URL's file name without its extension, with characters outside [A-Za-z0-9._-] replaced by `_`.
    static func animationID(for url: URL) -> String {
        let name = url.deletingPathExtension().lastPathComponent
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "animation" : cleaned
    }
}
