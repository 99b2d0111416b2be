import Foundation
import MediaAssets
import MediaAssetsImage

/// Where stills live: memory, then storage, under the video's key, the position, the style and its format; a
/// still not found is decoded once however many ask (`pool`), styled on the manager's executor and stored.
struct StillCache {
    let manager: AssetsManager
    let storageType: StorageType
    let pool: RequestPool<CacheKey, Image>

    /// The still of the video at `url`, stored under `videoKey`, at `position` in `style`; `decode` makes the frame
    /// scaled to fit a box of the size it is given. A style that cannot be drawn, or fails, is an
    /// `AssetProcessingError` naming it, as from `ImageUtil`.
    func still(
        of videoKey: CacheKey, url: URL, at position: VideoFramePosition, style: some ImageProcessing,
        options: VideoFrameOptions, decode: @escaping @Sendable (Int) async throws -> Image
    ) async throws -> Image {
        let encoder = ImageUtil.Configuration().variantFormat
        let box = style.targetSize.map { max($0.width, $0.height) * 2 } ?? options.maxPixelSize
        let still = "frame(\(position.identifier)\(options.exactFrame ? "" : ",key"),\(box))"
        let key = videoKey.variant(still).variant("\(style.identifier)@\(encoder.identifier)")
        let memory = manager.decodedObjectCache(for: storageType)
        if let image = memory?.cachedEntry(forKey: key)?.decoded?.value as? Image { return image }
        if let data = try await manager.readData(forKey: key, storageType: storageType),
            let image = try? await manager.runtime.runOnExecutor({ try ImageDecoder.decode(data) })
        {
            memory?.insert(CacheEntry(data: data, decoded: DecodedObject(image, cost: image.cost)), forKey: key)
            return image
        }
        let styleError: @Sendable (any Error) -> AssetProcessingError = { error in
            AssetProcessingError(key: key, url: url, processor: style.identifier, underlying: error)
        }
        do { try style.validate() } catch { throw styleError(error) }
        return try await pool.value(for: key) { [manager, storageType] _ in
            let frame = try await decode(box)
            let (styled, data) = try await manager.runtime.runOnExecutor { () throws -> (Image, Data) in
                let styled: Image
                do { styled = style.isOriginal ? frame : try style.process(frame) } catch { throw styleError(error) }
                return (styled, try encoder.encode(styled))
            }
            let entry = CacheEntry(
                data: data, metadata: CacheMetadata(created: manager.configuration.now()),
                decoded: DecodedObject(styled, cost: styled.cost))
            try await manager.store(entry, forKey: key, storageType: storageType)
            return styled
        }
    }
}
