import Foundation
import MediaAssets
import Synchronization

/// Fetches, decodes, styles and caches images through an `AssetsManager`: memory, then storage, then
/// the network, with styled avatars, as an image decoder plus processors on the core's `AssetPipeline`.
///
/// An ask for a URL in a style (any `ImageProcessing`; `AvatarStyle` names the avatar styles) looks, in order, for
/// 1. the styled image kept in memory beside its bytes (`<key>@<identifier>`): returned with no decoding;
/// 2. the stored variant's bytes: decoded only;
/// 3. a decoded original kept in memory (`PipelineConfiguration.decodedOriginals`) that covers the style's region and
///    size: styled only;
/// 4. the original's bytes in storage, or from the network: decoded at display size (only the part the
///    style keeps, toward its size, in every format), styled, and the variant stored in the configured
///    `ImageEncoder` (by default PNG when it has transparency, JPEG otherwise).
///
/// Decoding, styling and encoding run on the manager's executor (`AssetsManager.Configuration.executor`), never
/// on Swift's cooperative pool. A service that sends bytes asks `encodedImage(for:style:format:)`: the stored
/// variant's bytes, with their content type and a strong validator, without decoding them.
///
/// Each stage is coalesced by its own key (`AssetPipeline`): one download per original, one decode per
/// original and size — a smaller style joins a larger decode, never the reverse — and one render per
/// variant. Bytes that do not decode are never stored and are reported as `ImageUtilError.undecodable`.
/// Under `.hybrid(t)` (or any `TieredCaching` backend) the original's bytes go to the byte tiers only,
/// while styled variants keep their decoded image in memory too.
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
    package let renderer: VariantRenderer
    /// The staged pipeline the util runs on.
    @usableFromInline package let pipeline: AssetPipeline<ImageAssetDecoder>
    /// The pipeline of animations (every frame), beside the one of still images.
    @usableFromInline package let animationPipeline: AssetPipeline<AnimatedImageDecoder>

    /// Creates a util over `manager`.
    public init(manager: AssetsManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
        let decoder = ImageAssetDecoder(configuration: configuration)
        self.renderer = decoder.renderer
        self.pipeline = AssetPipeline(
            manager: manager, decoder: decoder,
            configuration: configuration.pipeline
        )
        self.animationPipeline = AssetPipeline(
            manager: manager, decoder: AnimatedImageDecoder(configuration: configuration)
        )
        self.variantFormatIdentifier = configuration.variantFormat.identifier
    }

    /// Returns the image at `request` in `style`, from memory, storage or the network, in that order.
    ///
    /// The request's cache policy applies: `.reload` and `.revalidate` skip the cached variants and go to
    /// the network (a 304 keeps the original's bytes), `.cacheOnly` never downloads.
    ///
    /// - Throws: `ImageUtilError` for undecodable bytes, `AssetProcessingError` for a style that cannot be
    ///   drawn (checked before any fetch) or fails (its own error in `underlying`), `AssetsError` for
    ///   network and storage failures, `CancellationError` when the calling task is cancelled.
    @inlinable
    public func image(
        for request: AssetRequest, style: some ImageProcessing = AvatarStyle.original,
        storageType: StorageType? = nil
    ) async throws -> Image {
        let storageType = storageType ?? configuration.storageType
        // Inlinable with `cachedImage`, so that the caller's module specializes a memory hit for its style.
        if let image = cachedImage(for: request, style: style, storageType: storageType) { return image }
        return try await imageResult(
            for: request, style: style, storageType: storageType, priority: nil, progress: nil,
            receivesBodyPieces: false
        ).value
    }

    /// Returns the image at `url` in `style`; see `image(for:style:storageType:)`.
    @inlinable
    public func image(
        for url: URL, style: some ImageProcessing = AvatarStyle.original, storageType: StorageType? = nil
    ) async throws -> Image {
        try await image(for: AssetRequest(url: url), style: style, storageType: storageType)
    }

    /// Returns the image at `request` in `style` with where it came from (memory, storage, network, stale).
    public func imageResult(
        for request: AssetRequest, style: some ImageProcessing = AvatarStyle.original,
        storageType: StorageType? = nil
    ) async throws -> AssetResult<Image> {
        let storageType = storageType ?? configuration.storageType
        return try await imageResult(
            for: request, style: style, storageType: storageType, priority: nil, progress: nil,
            receivesBodyPieces: false)
    }

    /// `imageResult(for:style:storageType:)` ranked by `priority`, reporting `progress` (with the body's pieces
    /// when `receivesBodyPieces` and this ask starts the download).
    @usableFromInline
    func imageResult(
        for request: AssetRequest, style: some ImageProcessing, storageType: StorageType, priority: LivePriority?,
        progress: (@Sendable (FetchProgress) -> Void)?, receivesBodyPieces: Bool
    ) async throws -> AssetResult<Image> {
        let result: AssetResult<Image>
        if style.isOriginal {
            result = try await pipeline.value(
                for: request, options: .fullSize, storageType: storageType, priority: priority, progress: progress,
                receivesBodyPieces: receivesBodyPieces)
        } else {
            let variant = formatted(style)
            try validate(style, for: request, key: variant.variantKey(of: manager.cacheKey(for: request)))
            result = try await naming(style) {
                try await pipeline.value(
                    for: request, processor: variant, options: .init(for: style), storageType: storageType,
                    priority: priority, progress: progress, receivesBodyPieces: receivesBodyPieces
                )
            }
        }
        if result.source == .network, let original = style.isOriginal ? result.value : result.original {
            // A style's region is only part of the image: the placeholder is then made from the bytes.
            let whole = style.isOriginal || style.regionOfInterest == nil ? original : nil
            makePlaceholder(for: request, from: whole, metadata: result.metadata, storageType: storageType)
        }
        return result
    }

    /// Checks a style's parameters before anything is fetched (`ImageProcessing.validate()`), throwing what
    /// its render would: `AssetProcessingError` with the style's `ImageProcessingError` (a size, radius or
    /// border it cannot draw).
    func validate(_ style: some ImageProcessing, for request: AssetRequest, key: @autoclosure () -> CacheKey) throws {
        do {
            try style.validate()
        } catch {
            throw AssetProcessingError(key: key(), url: request.url, processor: style.identifier, underlying: error)
        }
    }

    /// Runs `body`, naming `style` in an `AssetProcessingError` it throws: the pipeline names the wrapper that
    /// adds the variant's format (`circle(96)@png`), a caller knows the style it passed (`circle(96)`).
    func naming<T>(_ style: some ImageProcessing, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AssetProcessingError {
            throw AssetProcessingError(
                key: error.key, url: error.url, processor: style.identifier, underlying: error.underlying)
        }
    }

    /// The key `request`'s image in `style` is stored under: `<key>@<style.identifier>@<format>` in the
    /// configured `ImageEncoder`, or the original's key for `.original`.
    public func cacheKey(for request: AssetRequest, style: some ImageProcessing) -> CacheKey {
        let originalKey = manager.cacheKey(for: request)
        if style.isOriginal { return originalKey }
        return formatted(style).variantKey(of: originalKey)
    }

    /// The image of `request` in `style` if memory holds it, without waiting or decoding.
    ///
    /// Reads the decoded-object tier of `storageType`'s backend (`DecodedObjectCaching`), whatever backend
    /// a user registered there.
    @inlinable
    public func cachedImage(
        for request: AssetRequest, style: some ImageProcessing, storageType: StorageType? = nil
    ) -> Image? {
        let storageType = storageType ?? configuration.storageType
        if style.isOriginal {
            return pipeline.cachedValue(for: request, options: .fullSize, storageType: storageType)?.value
        }
        return pipeline.cachedValue(for: request, processor: formatted(style), storageType: storageType)?.value
    }

    /// A snapshot of the counters of still images: the pipeline's, with the avatars styled from an app's
    /// original (`avatar(_:)`) in `processes`, `failures` and `cancellations`. Coalesced asks count once per
    /// shared piece of work: five concurrent asks for one cold styled variant make one network fetch, one
    /// decode, one process and four `joins`; encoded answers count as hits where their bytes were. When the
    /// util's still images are the only asks through its manager, `joins` equals `FetchStatistics.joins`.
    public var statistics: PipelineStatistics {
        var statistics = pipeline.statistics
        statistics.processes += avatarRenders.withLock { $0 }
        statistics.failures += avatarFailures.withLock { $0 }
        statistics.cancellations += avatarCancellations.withLock { $0 }
        return statistics
    }

    /// The configured variant format's identifier, made once: every styled ask's key names it.
    let variantFormatIdentifier: String

    /// Placeholders being computed, so joiners of one download make one.
    let placeholdersUnderWay = Mutex(Set<CacheKey>())

    /// Renders of an `Avatar`'s local original, which bypass the pipeline.
    let avatarRenders = Mutex(0)
    let avatarFailures = Mutex(0)
    let avatarCancellations = Mutex(0)
}

/// Removing and pinning an image (`removeAsset(for:)`, `pinAsset(for:storageType:)`): the original, every styled
/// variant, the placeholder and the decoded originals kept in memory.
extension ImageUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }
}
