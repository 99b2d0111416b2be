import Foundation
import Synchronization

/// The staged pipeline every util builds on: memory → storage → fetch → download → decode → process →
/// store, each stage coalesced by its own key, with the cache lookup of each stage inside its flight.
///
/// ```
/// value(for:processor:options:)     memory <key>@<processor> ─ fresh hit: done, nothing awaited
///  └─ process flight   (variant key, storage, policy)      stored variant bytes → decode
///      └─ decode flight  (key, storage, policy, options)   memory <key>@decoded(<decoder>) covering options
///          └─ fetch flight (key, storage, policy)          staged or stored bytes → download
///              └─ download flight (key, validators)        retries, the transfer, its length checks
/// ```
///
/// Every pipeline over one manager shares that manager's pipeline runtime, which owns the fetch and download
/// flights, the stage limiters, the executor, the staged writes and background work: a cold miss is followed
/// in one folder (`Sources/MediaAssets/Pipeline`), and the manager is asked only where a storage type's
/// backends are.
///
/// An ask joins a decode under way only when that decode's options satisfy it
/// (`AssetDecoding.options(_:satisfy:)`): a 96 px ask never receives a 40 px decode, and a 40 px ask
/// joins a 96 px one. A download is stored only after it decoded; one whose bytes arrived before every asker
/// left is decoded in the background, then stored. Results return before their bytes are written; reads see
/// the write meanwhile. Downloads, decodes and processing steps are bounded by
/// the manager's stage limiters, in priority order. Stale entries are served under
/// `stale-while-revalidate` (one background revalidation) and `stale-if-error`.
///
/// A util is a decoder plus processors:
/// ```swift
/// let documents = AssetPipeline(manager: manager, decoder: JSONDocumentDecoder<Feed>())
/// let feed = try await documents.value(for: AssetRequest(url: feedURL)).value
/// ```
public final class AssetPipeline<Decoder: AssetDecoding>: Sendable {
    /// What the pipeline produces.
    public typealias Value = Decoder.Value

    /// The manager every read, write and fetch goes through.
    public let manager: AssetsManager
    /// The decode stage.
    @usableFromInline package let decoder: Decoder
    /// The configuration.
    package let configuration: PipelineConfiguration
    /// The flow's owner: flights, downloads, staged writes, limiters and the executor, shared with every
    /// pipeline over `manager`.
    @usableFromInline let runtime: PipelineRuntime

    /// Admits the asks memory did not answer, `Configuration.activeAsks` at a time.
    let askLimiter: WorkLimiter
    let variantFlights: RequestPool<VariantFlightKey, AssetResult<Value>>
    let decodeFlights: RequestPool<DecodeFlightKey, AssetResult<Value>>
    /// The joins of this pipeline's asks, wherever they joined (its flights, the manager's fetches and downloads).
    let joinCounter = JoinCounter()
    /// The decode options under way per original, so that an ask joins a decode that satisfies it.
    let decodesUnderWay = Mutex([DecodeSource: [Decoder.Options: Int]]())
    let counters = Mutex(PipelineStatistics())
    /// Memory hits, counted apart from `counters` so that a hit takes no lock of the pipeline's.
    private let memoryHitCount = Atomic<Int>(0)
    /// `decoded(<decoder>)`: the variant identifier of decoded originals, made once.
    private let decodedIdentifier: String

    /// Creates a pipeline over `manager` with `decoder`.
    public init(
        manager: AssetsManager, decoder: Decoder, configuration: PipelineConfiguration = PipelineConfiguration()
    ) {
        self.manager = manager
        self.decoder = decoder
        self.configuration = configuration
        self.runtime = manager.runtime
        self.askLimiter = WorkLimiter(limit: configuration.activeAsks)
        self.variantFlights = RequestPool(countingJoinsIn: runtime.joinCounter)
        self.decodeFlights = RequestPool(countingJoinsIn: runtime.joinCounter)
        self.decodedIdentifier = "decoded(" + decoder.identifier + ")"
    }

    // MARK: Memory (no waiting)

    // A memory hit takes one lock (the memory cache's) and allocates nothing: the route comes from the registry's
    // lock-free table, the key keeps its parts apart, the value is read back under its own type, and the hit is
    // counted atomically. The two lookups are inlinable so that a util's module specializes them for its decoder:
    // unspecialized, every hit looked up the metadata of the generic types it made.

    /// The decoded original of `request` if memory holds one that satisfies `options` and the
    /// request's cache policy, without waiting, reading or decoding.
    @inlinable
    public func cachedValue(
        for request: AssetRequest, options: Decoder.Options, storageType: StorageType
    ) -> AssetResult<Value>? {
        let key = decodedKey(runtime.cacheKey(for: request))
        guard let entry = acceptedMemoryEntry(key, storageType: storageType, policy: request.cachePolicy),
            let kept = entry.decoded?.value(as: KeptDecode.self), decoder.options(kept.options, satisfy: options)
        else { return nil }
        countMemoryHit()
        return AssetResult(value: kept.value, source: .memory, metadata: entry.metadata)
    }

    /// The processed value of `request` if memory holds it and the request's cache policy accepts it,
    /// without waiting, reading or decoding.
    @inlinable
    public func cachedValue(
        for request: AssetRequest, processor: some AssetProcessing<Value>, storageType: StorageType
    ) -> AssetResult<Value>? {
        let key = processor.variantKey(of: runtime.cacheKey(for: request))
        guard let entry = acceptedMemoryEntry(key, storageType: storageType, policy: request.cachePolicy),
            let value = entry.decoded?.value(as: Value.self)
        else { return nil }
        countMemoryHit()
        return AssetResult(value: value, source: .memory, metadata: entry.metadata)
    }

    /// The entry memory holds for `key` in `storageType`'s decoded-object tier, if `policy` accepts it.
    @usableFromInline
    func acceptedMemoryEntry(
        _ key: CacheKey, storageType: StorageType, policy: AssetRequest.CachePolicy
    ) -> CacheEntry? {
        guard let memory = manager.decodedObjectCache(for: storageType), let entry = memory.cachedEntry(forKey: key),
            policy.accepts(entry, clock: runtime.now)
        else { return nil }
        return entry
    }

    // MARK: Fetch, decode, process

    /// Returns the decoded asset: from memory, storage or the network, in that order.
    ///
    /// The ask is ranked by `request.priority` wherever it waits; to change its priority while it waits, start
    /// it as a task (`task(for:options:storageType:progress:)`).
    ///
    /// - Parameters:
    ///   - request: what to fetch, with its cache policy.
    ///   - options: what the decode must cover (a decode under way that satisfies them is joined).
    ///   - storageType: where the asset is read and stored.
    ///   - progress: download progress while this ask waits (whichever ask started the download).
    /// - Throws: the decoder's error for bytes that do not decode (`AssetsError.undecodable` unless
    ///   the util maps it), `AssetsError` for network and storage failures, `CancellationError`.
    public func value(
        for request: AssetRequest, options: Decoder.Options, storageType: StorageType,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> AssetResult<Value> {
        try await value(for: request, options: options, storageType: storageType, priority: nil, progress: progress)
    }

    /// `value(for:options:storageType:progress:)` ranked by `priority` (else the current ask's, else the
    /// request's); with `receivesBodyPieces`, a download this ask starts streams its body and `progress`
    /// reports carry each piece (`FetchProgress.piece`), for previews.
    package func value(
        for request: AssetRequest, options: Decoder.Options, storageType: StorageType,
        priority: LivePriority?, progress: (@Sendable (FetchProgress) -> Void)? = nil,
        receivesBodyPieces: Bool = false
    ) async throws -> AssetResult<Value> {
        if let hit = cachedValue(for: request, options: options, storageType: storageType) { return hit }
        do {
            return try await admitted(request, priority: priority) {
                let asked = AskJoins(counter: joinCounter)
                let route = try manager.route(for: storageType)
                let tracking = FetchTracking(progress: progress, receivesBodyPieces: receivesBodyPieces)
                let result = try await AskJoins.$current.withValue(asked) {
                    try await LivePriority.withAskPriority(priority, request: request) {
                        try await decoded(request, options: options, route: route, tracking: tracking)
                    }
                }
                if configuration.decodedOriginals == .whenAskedUnprocessed, result.source != .memory {
                    let key = decodedKey(runtime.cacheKey(for: request))
                    keep(result.value, options: options, metadata: result.metadata, forKey: key, route: route)
                }
                return result.joined(asked)
            }
        } catch {
            countEnd(error)
            throw error
        }
    }

    /// Returns the decoded asset with `processor` applied, from memory, a stored variant, or the
    /// original (from storage or the network) decoded with `options` and processed; the processed value
    /// is kept in memory and, when the decoder encodes variants, stored under `<key>@<processor>`.
    ///
    /// A variant is as fresh as its original: once stale, it is made again from the revalidated original.
    /// The ask is ranked and reports progress as in `value(for:options:storageType:progress:)`.
    public func value(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> AssetResult<Value> {
        try await value(
            for: request, processor: processor, options: options, storageType: storageType, priority: nil,
            progress: progress)
    }

    /// `value(for:processor:options:storageType:progress:)` ranked and streamed as
    /// `value(for:options:storageType:priority:progress:receivesBodyPieces:)` says.
    package func value(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType, priority: LivePriority?,
        progress: (@Sendable (FetchProgress) -> Void)? = nil, receivesBodyPieces: Bool = false
    ) async throws -> AssetResult<Value> {
        if let hit = cachedValue(for: request, processor: processor, storageType: storageType) { return hit }
        do {
            return try await admitted(request, priority: priority) {
                let asked = AskJoins(counter: joinCounter)
                let route = try manager.route(for: storageType)
                let variantKey = processor.variantKey(of: runtime.cacheKey(for: request))
                let flightKey = VariantFlightKey(
                    variantKey: variantKey, storageType: storageType, cachePolicy: request.cachePolicy
                )
                let tracking = FetchTracking(progress: progress, receivesBodyPieces: receivesBodyPieces)
                let result = try await AskJoins.$current.withValue(asked) {
                    try await LivePriority.withAskPriority(priority, request: request) {
                        try await variantFlights.value(for: flightKey, progress: progress) { [self] report in
                            try await processFlight(
                                request, processor: processor, options: options, variantKey: variantKey,
                                route: route, tracking: tracking.forwarding(to: report))
                        }
                    }
                }
                return result.joined(asked)
            }
        } catch {
            countEnd(error)
            throw error
        }
    }

    /// Counts an ask that memory did not answer and that threw: as a cancellation or as a failure.
    private func countEnd(_ error: Error) {
        counters.withLock {
            if error is CancellationError { $0.cancellations += 1 } else { $0.failures += 1 }
        }
    }

    /// Runs an ask that memory did not answer once fewer than `Configuration.activeAsks` run, ranked by
    /// `priority`, else the current ask's, else the request's own. It waits before the flights and stages, holding
    /// only the frames of its caller and of `value(for:…)`.
    private func admitted<T: Sendable>(
        _ request: AssetRequest, priority: LivePriority?, _ operation: () async throws -> T
    ) async throws -> T {
        let rank = priority ?? LivePriority.current ?? LivePriority(request.priority)
        return try await askLimiter.run(priority: rank, operation)
    }

    /// Asks that memory did not answer and that wait for one of the `Configuration.activeAsks` places.
    package var waitingAskCount: Int { askLimiter.waitingCount }

    /// A snapshot of the counters.
    public var statistics: PipelineStatistics {
        var statistics = counters.withLock { $0 }
        statistics.memoryHits = memoryHitCount.load(ordering: .relaxed)
        statistics.joins = joinCounter.value
        return statistics
    }

    /// Process and decode flights under way (for tests).
    package var inFlightCount: Int { variantFlights.inFlightCount + decodeFlights.inFlightCount }

    /// The priority of the process flight making `request`'s variant by `processor` in `storageType`, if one
    /// is under way (the highest of its askers').
    package func flightPriority(
        for request: AssetRequest, processor: some AssetProcessing<Value>, storageType: StorageType
    ) -> AssetRequest.Priority? {
        variantFlights.flightPriority(
            for: VariantFlightKey(
                variantKey: processor.variantKey(of: runtime.cacheKey(for: request)), storageType: storageType,
                cachePolicy: request.cachePolicy))
    }

    /// The key a decoded original is kept under in memory: `<key>@decoded(<decoder>)`.
    @usableFromInline package func decodedKey(_ originalKey: CacheKey) -> CacheKey {
        originalKey.variant(decodedIdentifier)
    }

    @usableFromInline
    func countMemoryHit() {
        memoryHitCount.add(1, ordering: .relaxed)
    }
}

/// How an `AssetPipeline` keeps what it decoded and how many asks it lets in; a util built on a pipeline
/// holds one (`ImageUtil.Configuration.pipeline`).
public struct PipelineConfiguration: Sendable {
    /// Which decoded originals are kept in memory (under `<key>@decoded(<decoder>)`). Default:
    /// `.whenAskedUnprocessed`: an unprocessed ask keeps the value it shows, while the decode a variant was
    /// processed from is dropped once the variant is made. A kept decode costs its whole bitmap or model and
    /// answers only asks its options cover (an image decoded for a style covers only that style's region, at
    /// twice its size or more: 4–16 times the variant's bitmap). Choose `.always` when one asset is shown at
    /// once in several variants that one decode covers.
    public var decodedOriginals: DecodedOriginalPolicy

    /// The largest encoded variant, in bytes, that `encodedVariant(for:processor:options:storageType:)`
    /// also keeps in the memory tier of a tiered storage type (`.hybrid(t)`), beside the decoded variant
    /// under the same key, so that a service's next ask for it reads no file. Default 64 KiB (an avatar is
    /// a few KiB); 0 keeps none. The memory tier charges those bytes against its partition.
    public var encodedVariantsInMemory: Int

    /// How many asks that memory did not answer run at once in this pipeline (joining or starting flights);
    /// the others wait, in live-priority order, before they enter it. A waiting ask holds only its caller's
    /// frames: in a burst of 10,000 asks, the frames of the pipeline's call chain (a few KiB an ask) are
    /// held by this many. Default 256, far more than a screen of rows or a service's cores keep busy.
    public var activeAsks: Int

    /// Creates a configuration.
    public init(
        decodedOriginals: DecodedOriginalPolicy = .whenAskedUnprocessed, encodedVariantsInMemory: Int = 64 << 10,
        activeAsks: Int = 256
    ) {
        self.decodedOriginals = decodedOriginals
        self.encodedVariantsInMemory = max(0, encodedVariantsInMemory)
        self.activeAsks = max(1, activeAsks)
    }
}

/// Which decoded originals an `AssetPipeline` keeps in memory beside the values it returns.
///
/// A kept original lets another variant of the same asset skip its decode, and costs its bitmap (or parsed
/// model) in the memory partition for as long as it stays there: for an image decoded at twice a 96 px
/// style's size it is several times the variant's own bitmap.
public enum DecodedOriginalPolicy: Sendable, Hashable {
    /// Every decoded original: a second variant of the asset needs no decode while it stays in memory.
    case always
    /// Only originals asked for unprocessed (`value(for:options:storageType:)`), which are the value shown;
    /// the decode a processed variant is made from is dropped once the variant is made.
    case whenAskedUnprocessed
    /// None: every ask that misses memory decodes stored bytes again.
    case never
}

/// What an `AssetPipeline` did, counted.
///
/// Hits and fetches count the work done, once however many asks shared it: five concurrent asks for one cold
/// variant make one network fetch, one decode, one process and four `joins`. `joins`, `failures` and
/// `cancellations` count asks.
public struct PipelineStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Asks answered from memory without decoding: a kept value, or (encoded output) the bytes of a variant
    /// kept in the memory tier.
    public var memoryHits = 0
    /// Asks answered from bytes in storage (the byte tiers, or writes still staged) instead of the network: a
    /// stored variant or original decoded, or (encoded output) a stored variant's bytes sent as they are.
    public var storageHits = 0
    /// Originals downloaded or revalidated.
    public var networkFetches = 0
    /// Decodes run.
    public var decodes = 0
    /// Decodes that threw: bytes rejected (never stored; stored ones removed).
    public var undecodable = 0
    /// Processing steps run.
    public var processes = 0
    /// Encoded output (`encodedVariant(for:…)`) answered with a variant's bytes as kept, without decoding:
    /// each is also counted in `memoryHits` or `storageHits`, by where the bytes were.
    public var encodedHits = 0
    /// Asks served stale.
    public var staleServed = 0
    /// Asks that joined work another ask had started (a render or decode of this pipeline, or a fetch or download
    /// of its manager) instead of starting their own; each such ask's result has `isJoined` set. Every join is
    /// also in the manager's `FetchStatistics.joins`.
    public var joins = 0
    /// Asks that memory did not answer and that ended in an error other than cancellation.
    public var failures = 0
    /// Asks that memory did not answer and that ended because they were cancelled (never in `failures`).
    public var cancellations = 0

    /// Creates zeroed statistics.
    package init() {}

    /// Adds `other`'s counts to these (a util over several pipelines reports their sum).
    package mutating func add(_ other: PipelineStatistics) {
        memoryHits += other.memoryHits
        storageHits += other.storageHits
        networkFetches += other.networkFetches
        decodes += other.decodes
        undecodable += other.undecodable
        processes += other.processes
        encodedHits += other.encodedHits
        staleServed += other.staleServed
        joins += other.joins
        failures += other.failures
        cancellations += other.cancellations
    }

    public var description: String {
        "memory hits \(memoryHits), storage hits \(storageHits), network fetches \(networkFetches), "
            + "decodes \(decodes), undecodable \(undecodable), processes \(processes), encoded hits \(encodedHits), "
            + "stale \(staleServed), joins \(joins), failures \(failures), cancellations \(cancellations)"
    }
}
