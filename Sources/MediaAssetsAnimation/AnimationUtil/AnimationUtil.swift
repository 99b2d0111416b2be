import Foundation
import MediaAssets
import MediaAssetsImage
import Synchronization

/// Fetches, parses and caches Lottie animations through an `AssetsManager`, keeping the parsed
/// model — not just the bytes — in memory.
///
/// A memory hit returns the parsed `LottieDocument` with no parsing. A miss parses once: bytes
/// found in storage are parsed, and a download is parsed before it is stored, so an invalid file
/// never reaches the disk. Concurrent asks for one animation share one fetch and one parse.
///
/// ```swift
/// let animations = AnimationUtil(manager: manager)
/// let confetti = try await animations.animation(for: URL(string: "https://cdn.example.com/confetti.json")!)
/// print(confetti.duration, confetti.layerCount)
/// ```
public final class AnimationUtil: Sendable {
    /// How animations are parsed and where they are kept.
    public struct Configuration: Sendable {
        /// Limits for Lottie JSON, also for the animations, themes and state machines inside archives.
        public var parsingOptions: LottieParsingOptions
        /// Limits for dotLottie archives (their zip directory and sizes).
        public var dotLottieOptions: DotLottieReadingOptions
        /// Where the util keeps animations unless a call names another storage type (every method's
        /// `storageType` argument). Default `.hybrid(.lottie)`: parsed animations in the lottie memory
        /// partition over the disk cache's bytes.
        public var storageType: StorageType

        /// Creates a configuration with the parsers' default limits, keeping animations in `.hybrid(.lottie)`.
        public init(
            parsingOptions: LottieParsingOptions = .init(), dotLottieOptions: DotLottieReadingOptions = .init(),
            storageType: StorageType = .hybrid(.lottie)
        ) {
            self.parsingOptions = parsingOptions
            self.dotLottieOptions = dotLottieOptions
            self.storageType = storageType
        }
    }

    /// The manager animations are fetched and cached through.
    public let manager: AssetsManager
    /// The parsing limits.
    public let configuration: Configuration
    /// The util image assets are fetched, decoded and cached through (shared with the app's, so an
    /// image used by an animation and a screen is fetched and decoded once).
    public let images: ImageUtil

    /// Parses Lottie JSON: the decode stage of `animation(for:storageType:)`.
    struct LottieDecoder: AssetDecoding {
        typealias Options = DefaultDecodeOptions
        let options: LottieParsingOptions
        var identifier: String { "lottie" }
        func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> LottieDocument {
            try LottieDocument.parse(data, options: options)
        }
        func cost(of animation: LottieDocument) -> Int { animation.estimatedMemoryCost }
        func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
            guard let reason = error as? LottieError else { return error }
            return AnimationUtilError.undecodable(url: url, key: key, reason: reason)
        }
    }

    /// Reads dotLottie archives: the decode stage of `dotLottie(for:storageType:)`.
    struct DotLottieDecoder: AssetDecoding {
        typealias Options = DefaultDecodeOptions
        let options: DotLottieReadingOptions
        var identifier: String { "dotlottie" }
        func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> DotLottie {
            try DotLottie.read(data, limits: options)
        }
        func cost(of archive: DotLottie) -> Int {
            archive.animations.reduce(0) { $0 + $1.animation.estimatedMemoryCost }
                + archive.images.values.reduce(0) { $0 + $1.count }
                + archive.themes.reduce(0) { $0 + $1.data.count }
                + archive.stateMachines.reduce(0) { $0 + $1.data.count }
        }
        func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
            guard let reason = error as? DotLottieError else { return error }
            return AnimationUtilError.undecodableArchive(url: url, key: key, reason: reason)
        }
    }

    private let animations: AssetPipeline<LottieDecoder>
    /// Parses the JSON of loads with assets: the model is kept in memory inside the `LoadedAnimation`,
    /// not a second time alone.
    let animationsWithAssets: AssetPipeline<LottieDecoder>
    private let archives: AssetPipeline<DotLottieDecoder>
    /// Loads with assets under way, one per animation, options and storage.
    let loads = RequestPool<LoadFlightKey, AssetResult<LoadedAnimation>>()
    let assetCounters = Mutex(AnimationAssetCounters())
    /// The image decoder's identifier, part of every loaded animation's memory key (computed once: a memory
    /// hit makes the key).
    let imageDecoderIdentifier: String

    /// Creates a util over `manager`; image assets go through `images` (by default an `ImageUtil` of its own
    /// over the same manager).
    public init(manager: AssetsManager, configuration: Configuration = Configuration(), images: ImageUtil? = nil) {
        self.manager = manager
        self.configuration = configuration
        let images = images ?? ImageUtil(manager: manager)
        self.images = images
        self.imageDecoderIdentifier = images.pipeline.decoder.identifier
        let decoder = LottieDecoder(options: configuration.parsingOptions)
        var archiveLimits = configuration.dotLottieOptions
        archiveLimits.parsing = configuration.parsingOptions
        self.animations = AssetPipeline(manager: manager, decoder: decoder)
        self.animationsWithAssets = AssetPipeline(
            manager: manager, decoder: decoder, configuration: .init(decodedOriginals: .never)
        )
        self.archives = AssetPipeline(
            manager: manager, decoder: DotLottieDecoder(options: archiveLimits)
        )
    }

    /// What the util has done so far, summed over its animations, archives and loads with assets: `decodes`
    /// counts files parsed, `undecodable` files refused (never stored), `processes` animations loaded with
    /// their image assets (whose own fetches and decodes are in `images.statistics`).
    public var statistics: PipelineStatistics {
        var statistics = PipelineStatistics()
        for part in [animations.statistics, animationsWithAssets.statistics, archives.statistics] {
            statistics.add(part)
        }
        let assets = assetCounters.withLock { $0 }
        statistics.memoryHits += assets.memoryHits
        statistics.processes += assets.loads
        return statistics
    }

    /// Asks that joined a load already under way (for tests and diagnostics).
    var pendingJoinCount: Int {
        animations.statistics.joins + archives.statistics.joins + animationsWithAssets.statistics.joins
            + loads.joinCount
    }

    /// Returns the parsed animation at `url`; see `animation(for:storageType:)`.
    public func animation(for url: URL, storageType: StorageType? = nil) async throws -> LottieDocument {
        let storageType = storageType ?? configuration.storageType
        return try await animation(for: AssetRequest(url: url), storageType: storageType)
    }

    /// Returns the parsed Lottie JSON animation for `request`: the parsed model from memory when it is
    /// fresh, else the stored or downloaded bytes parsed once (a stale one is revalidated first).
    ///
    /// - Throws: `LottieError` for malformed or invalid JSON (nothing is stored), `AssetsError` for
    ///   fetch failures.
    public func animation(
        for request: AssetRequest, storageType: StorageType? = nil
    ) async throws -> LottieDocument {
        let storageType = storageType ?? configuration.storageType
        return try await animationResult(for: request, storageType: storageType).value
    }

    /// Returns the parsed animation with where it came from (memory, storage, network, stale).
    public func animationResult(
        for request: AssetRequest, storageType: StorageType? = nil
    ) async throws -> AssetResult<LottieDocument> {
        let storageType = storageType ?? configuration.storageType
        return try await animations.value(for: request, options: DefaultDecodeOptions(), storageType: storageType)
    }

    /// Returns the dotLottie archive for `request` with every animation parsed.
    ///
    /// - Throws: `DotLottieError` for a bad archive (nothing is stored), `AssetsError` for fetch failures.
    public func dotLottie(for request: AssetRequest, storageType: StorageType? = nil) async throws
        -> DotLottie
    {
        let storageType = storageType ?? configuration.storageType
        return try await archives.value(for: request, options: DefaultDecodeOptions(), storageType: storageType).value
    }

    /// Returns the dotLottie archive at `url`; see `dotLottie(for:storageType:)`.
    public func dotLottie(for url: URL, storageType: StorageType? = nil) async throws -> DotLottie {
        let storageType = storageType ?? configuration.storageType
        return try await dotLottie(for: AssetRequest(url: url), storageType: storageType)
    }
}

/// Removing and pinning an animation (`removeAsset(for:)`, `pinAsset(for:storageType:)`): its bytes and the parsed
/// and loaded animations kept in memory under keys derived from it. Images it references by URL are assets of
/// their own (`ImageUtil.removeAsset(for:)`).
extension AnimationUtil: AssetUtil {
    /// `configuration.storageType`.
    public var defaultStorageType: StorageType { configuration.storageType }
}
