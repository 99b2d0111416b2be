import Foundation

extension AssetPipeline {
    /// What process flights coalesce on.
    struct VariantFlightKey: Hashable, Sendable {
        var variantKey: CacheKey
        var storageType: StorageType
        var cachePolicy: AssetRequest.CachePolicy
    }

    /// An original as decode flights see it.
    struct DecodeSource: Hashable, Sendable {
        var originalKey: CacheKey
        var storageType: StorageType
        var cachePolicy: AssetRequest.CachePolicy
    }

    /// What decode flights coalesce on: one decode per original and options.
    struct DecodeFlightKey: Hashable, Sendable {
        var source: DecodeSource
        var options: Decoder.Options
    }

    /// A decoded original kept in memory, with the options it was decoded with.
    @usableFromInline
    struct KeptDecode: Sendable {
        @usableFromInline var value: Value
        @usableFromInline var options: Decoder.Options
    }

    // MARK: Process stage

    func processFlight(
        _ request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        variantKey: CacheKey, route: StorageRoute, tracking: FetchTracking
    ) async throws -> AssetResult<Value> {
        let policy = request.cachePolicy
        if let memory = route.memory, let hit = memoryValue(variantKey, in: memory, policy: policy) {
            countMemoryHit()
            return hit
        }
        if policy == .useCache || policy == .cacheOnly, !route.isMemoryOnly,
            let stored = try await storedVariant(variantKey, route: route, policy: policy)
        {
            return stored
        }
        // One slot from the fetch to the write: what a variant holds between stages (the original's bytes, its
        // decode) is held by at most `StageLimits.variants` variants, however many are asked for.
        return try await runtime.variantLimiter.run {
            try await makeVariant(
                request, processor: processor, options: options, variantKey: variantKey, route: route,
                tracking: tracking)
        }
    }

    /// Fetches and decodes the original, processes it, and keeps the variant (in memory, and staged for the byte
    /// tiers).
    private func makeVariant(
        _ request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        variantKey: CacheKey, route: StorageRoute, tracking: FetchTracking
    ) async throws -> AssetResult<Value> {
        let original = try await decoded(request, options: options, route: route, tracking: tracking)
        let made: (value: Value, encoded: EncodedVariant?)
        do {
            made = try await runtime.processLimiter.run {
                try await runtime.runOnExecutor {
                    let processed = try processor.process(original.value)
                    // Encoded only for the byte tiers: memory keeps the value alone, charged at its own cost. A
                    // variant that cannot be encoded is kept in memory only.
                    guard !route.isMemoryOnly else { return (processed, nil) }
                    return (processed, try? encodedVariant(of: processed, by: processor))
                }
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw AssetProcessingError(
                key: variantKey, url: request.url, processor: processor.identifier, underlying: error)
        }
        counters.withLock { $0.processes += 1 }
        // A variant inherits its original's freshness, so a changed original behind one URL is seen.
        var metadata = original.metadata
        metadata.created = runtime.now()
        metadata.lastAccess = metadata.created
        metadata.etag = made.encoded.map { EntityTag.strong(hashing: $0.data).description }
        metadata.lastModified = nil
        metadata.contentType = made.encoded?.contentType
        let entry = CacheEntry(
            data: made.encoded?.data ?? Data(), metadata: metadata,
            decoded: DecodedObject(made.value, cost: decoder.cost(of: made.value))
        )
        try await remember(entry, forKey: variantKey, route: route, persisting: made.encoded != nil)
        var result = AssetResult(
            value: made.value, source: original.source, metadata: metadata, original: original.value)
        result.encoded = made.encoded
        return result
    }

    /// `value`'s bytes as `processor` encodes them, else as the decoder does (`nil` when neither encodes).
    func encodedVariant(of value: Value, by processor: some AssetProcessing<Value>) throws -> EncodedVariant? {
        if let encoded = try processor.encodeVariant(value) { return encoded }
        return try decoder.encodeVariant(value)
    }

    /// A stored variant's bytes, decoded and kept in memory; a variant that no longer decodes is removed.
    private func storedVariant(
        _ key: CacheKey, route: StorageRoute, policy: AssetRequest.CachePolicy
    ) async throws -> AssetResult<Value>? {
        guard let entry = try await runtime.storedEntry(forKey: key, route: route, bytesOnly: true),
            policy.accepts(entry, at: runtime.now()), !entry.data.isEmpty
        else { return nil }
        let value: Value
        do {
            value = try await runtime.decodeLimiter.run {
                try await runtime.runOnExecutor { try decoder.decode(entry.data, options: decoder.variantOptions) }
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            try? await route.remove(key)
            return nil
        }
        counters.withLock {
            $0.decodes += 1
            $0.storageHits += 1
        }
        var remembered = entry
        remembered.data = Data()  // the bytes stay in the byte tiers; memory is charged the value only
        remembered.decoded = DecodedObject(value, cost: decoder.cost(of: value))
        route.memory?.insert(remembered, forKey: key)
        var result = AssetResult(value: value, source: .storage, metadata: entry.metadata)
        result.encoded = EncodedVariant(data: entry.data, contentType: entry.metadata.contentType)
        return result
    }

    /// Keeps a processed value in memory at once (without its encoded bytes, so it costs its value alone) and
    /// writes its bytes to the byte tiers behind the caller's back (once staged writes have room for them).
    func remember(
        _ entry: CacheEntry, forKey key: CacheKey, route: StorageRoute, persisting: Bool
    ) async throws {
        if let memory = route.memory {
            var value = entry
            value.data = Data()
            memory.insert(value, forKey: key)
        }
        guard persisting, !route.isMemoryOnly else { return }
        var bytes = entry
        bytes.decoded = nil
        try await runtime.stage(bytes, forKey: key, route: route, bytesOnly: true)
    }

    // MARK: Decode stage

    /// The decoded original: a kept decode that satisfies `options` (a memory hit), else a decode flight,
    /// joining one under way whose options satisfy these.
    func decoded(
        _ request: AssetRequest, options: Decoder.Options, route: StorageRoute, tracking: FetchTracking = .none
    ) async throws -> AssetResult<Value> {
        let originalKey = runtime.cacheKey(for: request)
        if let memory = route.memory,
            let kept = keptDecode(decodedKey(originalKey), in: memory, satisfying: options, policy: request.cachePolicy)
        {
            countMemoryHit()
            return kept
        }
        let source = DecodeSource(
            originalKey: originalKey, storageType: route.storageType, cachePolicy: request.cachePolicy
        )
        let chosen = decodesUnderWay.withLock { underWay -> Decoder.Options in
            let running = underWay[source, default: [:]].keys
            let chosen = running.first { decoder.options($0, satisfy: options) } ?? options
            underWay[source, default: [:]][chosen, default: 0] += 1
            return chosen
        }
        defer {
            decodesUnderWay.withLock { underWay in
                guard let count = underWay[source]?[chosen] else { return }
                underWay[source]?[chosen] = count > 1 ? count - 1 : nil
                if underWay[source]?.isEmpty == true { underWay[source] = nil }
            }
        }
        let flightKey = DecodeFlightKey(source: source, options: chosen)
        return try await decodeFlights.value(for: flightKey, progress: tracking.progress) { [self] report in
            try await decodeFlight(
                request, originalKey: originalKey, options: chosen, route: route,
                tracking: tracking.forwarding(to: report))
        }
    }

    private func decodeFlight(
        _ request: AssetRequest, originalKey: CacheKey, options: Decoder.Options, route: StorageRoute,
        tracking: FetchTracking
    ) async throws -> AssetResult<Value> {
        // Kept by a flight that ended while this one was being set up: the asks that joined this flight are
        // joins, the one that started it a memory hit.
        if let memory = route.memory,
            let kept = keptDecode(decodedKey(originalKey), in: memory, satisfying: options, policy: request.cachePolicy)
        {
            countMemoryHit()
            return kept
        }
        // A download its askers leave after its bytes arrived is validated with this flight's decoder and options.
        var tracking = tracking
        tracking.keepAbandoned = { [self] staged, entry in validateInBackground(staged, entry.data, options: options) }
        let fetched = try await runtime.fetchOriginal(request, route: route, bytesOnly: true, tracking: tracking)
        if fetched.revalidatesInBackground {
            runtime.revalidateInBackground(originalKey, route: route, bytesOnly: true) { [self] in
                var revalidation = request
                revalidation.cachePolicy = .revalidate
                revalidation.priority = .low
                _ = try await decoded(revalidation, options: options, route: route)
            }
        }
        let value: Value
        do {
            value = try await runtime.decodeLimiter.run {
                try await runtime.runOnExecutor { try decoder.decode(fetched.entry.data, options: options) }
            }
        } catch {
            if let staged = fetched.staged, error is CancellationError {
                // Every asker left after the bytes arrived: they are kept, validated in the background.
                validateInBackground(staged, fetched.entry.data, options: options)
            } else if let staged = fetched.staged {
                runtime.pendingWrites.discard(staged)
            } else if !(error is CancellationError), fetched.source != .network {
                // Stored bytes that no longer decode are removed, so the next ask downloads them anew.
                runtime.pendingWrites.drop(.init(storageType: route.storageType, key: originalKey))
                try? await route.remove(originalKey)
            }
            if error is CancellationError { throw error }
            counters.withLock { $0.undecodable += 1 }
            throw decoder.decodingError(error, key: originalKey, url: request.url)
        }
        fetched.staged.map(runtime.pendingWrites.commit)
        fetched.awaitingValidation.map(runtime.pendingWrites.commit)
        counters.withLock {
            $0.decodes += 1
            switch fetched.source {
            case .network: $0.networkFetches += 1
            case .storage: $0.storageHits += 1
            case .stale: $0.staleServed += 1
            case .memory: break
            }
        }
        if configuration.decodedOriginals == .always {
            keep(
                value, options: options, metadata: fetched.entry.metadata, forKey: decodedKey(originalKey), route: route
            )
        }
        return AssetResult(value: value, source: fetched.source, metadata: fetched.entry.metadata)
    }

    /// Validates the bytes of a download whose askers all left, in the background: decodes them with this
    /// pipeline's decoder and the flight's `options`, on the manager's executor at the lowest priority, then
    /// commits the staging (it is written) or discards it (nothing undecodable is stored). An ask that came back
    /// meanwhile read the staged bytes and committed them once they decoded: then they are not decoded again.
    /// The decoded value is not kept in memory, where it would push out what is shown.
    func validateInBackground(_ staged: PendingWrites.Token, _ bytes: Data, options: Decoder.Options) {
        let pendingWrites = runtime.pendingWrites
        runtime.keptDownloads.start(priority: .background) { [self] in
            guard pendingWrites.awaitsValidation(staged) else { return }
            do {
                let decoded = try await runtime.decodeLimiter.run(priority: .veryLow) { () async throws -> Bool in
                    guard pendingWrites.awaitsValidation(staged) else { return false }
                    _ = try await runtime.runOnExecutor { try decoder.decode(bytes, options: options) }
                    return true
                }
                guard decoded else { return }
                pendingWrites.commit(staged)
                counters.withLock {
                    $0.decodes += 1
                    $0.networkFetches += 1
                }
            } catch {
                pendingWrites.discard(staged)
                if !(error is CancellationError) { counters.withLock { $0.undecodable += 1 } }
            }
        }
    }

    /// Keeps a decoded original in memory, unless memory holds one that already satisfies these options.
    func keep(
        _ value: Value, options: Decoder.Options, metadata: CacheMetadata, forKey key: CacheKey, route: StorageRoute
    ) {
        guard configuration.decodedOriginals != .never, let memory = route.memory else { return }
        // A larger decode that is at least as fresh stays: it answers this ask's options too.
        if let currentEntry = memory.cachedEntry(forKey: key),
            let current = currentEntry.decoded?.value(as: KeptDecode.self),
            current.options != options, decoder.options(current.options, satisfy: options),
            (currentEntry.metadata.freshUntil ?? .distantFuture) >= (metadata.freshUntil ?? .distantFuture)
        {
            return
        }
        let kept = KeptDecode(value: value, options: options)
        let entry = CacheEntry(
            data: Data(), metadata: metadata, decoded: DecodedObject(kept, cost: decoder.cost(of: value)))
        memory.insert(entry, forKey: key)
    }

    // MARK: Memory lookups

    /// A kept decode under `key` whose options satisfy `options`, if `policy` accepts it.
    func keptDecode(
        _ key: CacheKey, in memory: any DecodedObjectCaching, satisfying options: Decoder.Options,
        policy: AssetRequest.CachePolicy
    ) -> AssetResult<Value>? {
        guard let entry = memory.cachedEntry(forKey: key), policy.accepts(entry, clock: runtime.now),
            let kept = entry.decoded?.value(as: KeptDecode.self), decoder.options(kept.options, satisfy: options)
        else { return nil }
        return AssetResult(value: kept.value, source: .memory, metadata: entry.metadata)
    }

    /// A processed value under `key`, if `policy` accepts it.
    func memoryValue(
        _ key: CacheKey, in memory: any DecodedObjectCaching, policy: AssetRequest.CachePolicy
    ) -> AssetResult<Value>? {
        guard let entry = memory.cachedEntry(forKey: key), policy.accepts(entry, clock: runtime.now),
            let value = entry.decoded?.value(as: Value.self)
        else { return nil }
        return AssetResult(value: value, source: .memory, metadata: entry.metadata)
    }
}
