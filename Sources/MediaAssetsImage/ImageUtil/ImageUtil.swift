import Foundation
import MediaAssets
import Synchronization

/// Fetches, decodes, styles and caches images through an `AssetsManager`: SDImageCache's lookup with
/// Navi's styled avatars.
///
/// An ask for a URL in a style looks, in order, for
/// 1. the decoded image of the styled variant (`<key>@<style.identifier>`, or the original's key for
///    `.original`) kept in memory beside its bytes: returned with no decoding;
/// 2. the stored variant's bytes: decoded only;
/// 3. the stored original's bytes: decoded with libjpeg's DCT scaling toward the style's size, styled,
///    and the variant stored (PNG when it has transparency, JPEG otherwise) with its decoded image;
/// 4. the network, through `AssetsManager.entry(for:storageType:)`, then as in 3.
///
/// Every level is coalesced: concurrent asks share one download per original (the manager's pool), one
/// decode per original and decode size, and one render per variant. Bytes that do not decode are removed
/// from the cache and reported as `ImageUtilError.undecodable`: an invalid download is never kept.
///
/// Under `.hybrid(t)` the original's bytes are stored on `.disk` only, while variants are stored in
/// `.hybrid(t)` (bytes on disk, decoded image in `.lru(t)`); see `StorageLayout`.
///
/// ```swift
/// let images = ImageUtil(manager: try AssetsManager())
/// let avatar = try await images.image(for: url, style: .circle(diameter: 96))
/// ```
public final class ImageUtil: Sendable {
    /// The manager every read, write and fetch goes through.
    public let manager: AssetsManager
    /// The configuration the util was created with.
    public let configuration: Configuration
    /// The decode, render and encode steps.
    public let renderer: VariantRenderer

    /// Renders (and stored-variant decodes) under way, one per variant key, storage and cache policy.
    let renditions = RequestPool<RenditionKey, Rendition>()
    /// Decodes of originals under way, one per original key, storage, cache policy and decode size.
    let originals = RequestPool<OriginalKey, DecodedOriginal>()
    /// The decode sizes asked for per original, so that smaller styles join larger decodes.
    let decodeSizes = Mutex(DecodeSizeRegistry())
    let counters = Mutex(ImageUtilStatistics())

    /// Creates a util over `manager`.
    public init(manager: AssetsManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
        self.renderer = VariantRenderer(configuration: configuration)
    }

    /// Returns the image at `request` in `style`, from memory, storage or the network, in that order.
    ///
    /// The request's cache policy applies: `.reload` and `.revalidate` skip the cached variants and go to
    /// the manager's fetch (a 304 keeps the original's bytes), `.cacheOnly` never downloads.
    ///
    /// - Throws: `ImageUtilError` for undecodable bytes or a failing style, `AssetsError` for network and
    ///   storage failures, `CancellationError` when the calling task is cancelled.
    public func image(
        for request: AssetRequest, style: AvatarStyle = .original, storageType: StorageType = .hybrid(.image)
    ) async throws -> Image {
        try await rendition(for: request, style: style, storageType: storageType).image
    }

    /// Returns the image at `url` in `style`; see `image(for:style:storageType:)`.
    public func image(
        for url: URL, style: AvatarStyle = .original, storageType: StorageType = .hybrid(.image)
    ) async throws -> Image {
        try await image(for: AssetRequest(url: url), style: style, storageType: storageType)
    }

    /// The key `request`'s image in `style` is stored under: `<key>@<style.identifier>`, or the
    /// original's key for `.original`.
    public func cacheKey(for request: AssetRequest, style: AvatarStyle) -> CacheKey {
        let originalKey = manager.cacheKey(for: request)
        return style == .original ? originalKey : originalKey.variant(style.identifier)
    }

    /// The decoded image of `request` in `style` if memory holds it, without waiting or decoding.
    ///
    /// Reads the `.lru(t)` partition of `storageType` when it is a `MemoryCache`; `nil` otherwise.
    public func memoryImage(
        for request: AssetRequest, style: AvatarStyle, storageType: StorageType = .hybrid(.image)
    ) -> Image? {
        guard let memory = StorageLayout(storageType).memory,
            let cache = (try? manager.backend(for: memory)) as? MemoryCache,
            let entry = cache.entry(forKey: cacheKey(for: request, style: style)),
            request.cachePolicy.accepts(entry, at: manager.configuration.now()),
            let image = entry.decoded?.value as? Image
        else { return nil }
        counters.withLock { $0.memoryHits += 1 }
        return image
    }

    /// A snapshot of the counters.
    public var statistics: ImageUtilStatistics {
        var statistics = counters.withLock { $0 }
        statistics.joins = renditions.joinCount + originals.joinCount
        return statistics
    }
}
