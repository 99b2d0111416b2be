import Foundation
import MediaAssets
import Synchronization

/// Fetches, parses and caches Lottie animations through an `AssetsManager`, keeping the parsed
/// model — not just the bytes — in memory.
///
/// A memory hit returns the parsed `LottieAnimation` with no parsing. A miss parses once: bytes
/// found in storage are parsed, and a download is parsed before it is stored, so an invalid file
/// never reaches the disk. Concurrent asks for one animation share one fetch and one parse.
///
/// ```swift
/// let animations = AnimationUtil(manager: manager)
/// let confetti = try await animations.animation(for: URL(string: "https://cdn.example.com/confetti.json")!)
/// print(confetti.duration, confetti.layers.count)
/// ```
public final class AnimationUtil: Sendable {
    /// How animations are parsed.
    public struct Configuration: Sendable {
        /// Limits for Lottie JSON.
        public var parsingOptions: LottieParsingOptions
        /// Limits for dotLottie archives.
        public var dotLottieOptions: DotLottieReadingOptions

        /// Creates a configuration with the parsers' default limits.
        public init(
            parsingOptions: LottieParsingOptions = .init(), dotLottieOptions: DotLottieReadingOptions = .init()
        ) {
            self.parsingOptions = parsingOptions
            self.dotLottieOptions = dotLottieOptions
        }
    }

    /// The manager animations are fetched and cached through.
    public let manager: AssetsManager
    /// The parsing limits.
    public let configuration: Configuration

    /// What loads coalesce on: a `.reload` must not join a `.useCache` load, nor `.disk` a `.hybrid` one.
    private struct LoadKey: Hashable, Sendable {
        var key: CacheKey
        var storageType: StorageType
        var cachePolicy: AssetRequest.CachePolicy
    }

    private let animations = RequestPool<LoadKey, LottieAnimation>()
    private let archives = RequestPool<LoadKey, DotLottie>()
    private let counters = Mutex(AnimationStatistics())

    /// Creates a util over `manager`.
    public init(manager: AssetsManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
    }

    /// What the util has done so far.
    public var statistics: AnimationStatistics { counters.withLock { $0 } }

    /// Asks that joined a load already under way (for tests and diagnostics).
    var pendingJoinCount: Int { animations.joinCount + archives.joinCount }

    /// Returns the parsed animation at `url`; see `animation(for:storageType:)`.
    public func animation(for url: URL, storageType: StorageType = .hybrid(.lottie)) async throws -> LottieAnimation {
        try await animation(for: AssetRequest(url: url), storageType: storageType)
    }

    /// Returns the parsed Lottie JSON animation for `request`.
    ///
    /// - Throws: `LottieError` for malformed or invalid JSON (nothing is stored), `AssetsError` for
    ///   fetch failures.
    public func animation(
        for request: AssetRequest, storageType: StorageType = .hybrid(.lottie)
    ) async throws -> LottieAnimation {
        let options = configuration.parsingOptions
        return try await cachedOrFetched(request, storageType: storageType, pool: animations) { data in
            let animation = try LottieAnimation.parse(data, options: options)
            // The model holds the raw bytes too; the entry already counts them.
            return (animation, max(0, animation.estimatedMemoryCost - data.count))
        }
    }

    /// Returns the dotLottie archive for `request` with every animation parsed.
    ///
    /// - Throws: `DotLottieError` for a bad archive (nothing is stored), `AssetsError` for fetch failures.
    public func dotLottie(for request: AssetRequest, storageType: StorageType = .hybrid(.lottie)) async throws -> DotLottie {
        let options = configuration.dotLottieOptions
        return try await cachedOrFetched(request, storageType: storageType, pool: archives) { data in
            let archive = try DotLottie.read(data, options: options)
            let cost = archive.animations.reduce(0) { $0 + $1.animation.estimatedMemoryCost }
                + archive.images.values.reduce(0) { $0 + $1.count }
            return (archive, cost)
        }
    }

    /// Returns the dotLottie archive at `url`; see `dotLottie(for:storageType:)`.
    public func dotLottie(for url: URL, storageType: StorageType = .hybrid(.lottie)) async throws -> DotLottie {
        try await dotLottie(for: AssetRequest(url: url), storageType: storageType)
    }

    // MARK: Lookup

    /// Memory (the parsed model) → stored bytes (parsed once) → network (parsed before storing).
    private func cachedOrFetched<Model: Sendable>(
        _ request: AssetRequest, storageType: StorageType, pool: RequestPool<LoadKey, Model>,
        parse: @escaping @Sendable (Data) throws -> (Model, cost: Int)
    ) async throws -> Model {
        let key = manager.cacheKey(for: request)
        if request.cachePolicy == .useCache || request.cachePolicy == .cacheOnly,
            let partition = storageType.memoryPartition,
            let model = try await manager.entry(forKey: key, storageType: partition)?.decoded?.value as? Model
        {
            counters.withLock { $0.memoryHits += 1 }
            return model
        }
        let loadKey = LoadKey(key: key, storageType: storageType, cachePolicy: request.cachePolicy)
        return try await pool.value(for: loadKey, priority: request.priority.taskPriority) { [self] _ in
            try await load(request, key: key, storageType: storageType, parse: parse)
        }
    }

    private func load<Model: Sendable>(
        _ request: AssetRequest, key: CacheKey, storageType: StorageType,
        parse: @escaping @Sendable (Data) throws -> (Model, cost: Int)
    ) async throws -> Model {
        let counted: @Sendable (Data) throws -> DecodedObject = { [self] data in
            counters.withLock { $0.parses += 1 }
            do {
                let (model, cost) = try parse(data)
                return DecodedObject(model, cost: cost)
            } catch {
                counters.withLock { $0.rejectedFiles += 1 }
                throw error
            }
        }
        // Stored bytes are read from the byte part directly: a hybrid read would first promote the
        // bytes alone into memory, only for the parsed model to replace them. A stale entry is left
        // to the manager's fetch, which revalidates it.
        var stored: CacheEntry?
        if let entry = try await manager.entry(forKey: key, storageType: storageType.byteStorage),
            request.cachePolicy.accepts(entry, at: manager.configuration.now())
        {
            stored = entry
        }
        // The manager calls this only for responses (a download, or a 304's kept bytes).
        let decodeResponse: @Sendable (Data) throws -> DecodedObject = { [self] data in
            counters.withLock { $0.networkFetches += 1 }
            return try counted(data)
        }
        let entry: CacheEntry
        if let stored {
            entry = stored
        } else {
            entry = try await manager.entry(for: request, storageType: storageType, decode: decodeResponse)
            if let model = entry.decoded?.value as? Model { return model }
        }
        // Bytes found in storage: parse them once, and keep the model in memory.
        let decoded: DecodedObject
        do {
            decoded = try counted(entry.data)
        } catch {
            try? await manager.removeData(forKey: key, storageType: storageType)
            throw error
        }
        counters.withLock { $0.storageHits += 1 }
        if let partition = storageType.memoryPartition {
            let parsed = CacheEntry(data: entry.data, metadata: entry.metadata, decoded: decoded)
            try await manager.store(parsed, forKey: key, storageType: partition)
        }
        // `parse` made this value, so the cast cannot fail.
        return decoded.value as! Model
    }
}

/// Counters of an `AnimationUtil`.
public struct AnimationStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Files parsed (each is one full parse).
    public var parses = 0
    /// Asks answered with a parsed model from memory.
    public var memoryHits = 0
    /// Asks answered by parsing bytes found in storage.
    public var storageHits = 0
    /// Asks that went to the network.
    public var networkFetches = 0
    /// Files refused as invalid (never stored).
    public var rejectedFiles = 0

    /// Creates zeroed counters.
    public init() {}

    public var description: String {
        "parses \(parses), memory hits \(memoryHits), storage hits \(storageHits), "
            + "network fetches \(networkFetches), rejected \(rejectedFiles)"
    }
}
