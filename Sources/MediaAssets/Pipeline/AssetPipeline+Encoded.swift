import Foundation

extension AssetPipeline {
    /// Returns the bytes of `request`'s variant by `processor` as stored — what a service sends — with their
    /// content type and a strong validator (`metadata.etag`, an ``EntityTag``).
    ///
    /// A stored variant that the request's cache policy accepts is read from the memory tier of a tiered
    /// storage type (`Configuration.encodedVariantsInMemory`; source `.memory`), else from the staged writes or
    /// the byte tiers (source `.storage`), and returned as it is: nothing is decoded, and the hit is counted in
    /// `statistics.memoryHits` or `.storageHits`, and `.encodedHits`. Bytes read from the byte tiers or made
    /// are kept in the memory tier for the next ask. Otherwise the variant is made as
    /// `value(for:processor:options:storageType:progress:)` makes it (one flight
    /// with the asks for its value) and its bytes returned; a value found in memory alone (a memory-only
    /// storage type, or bytes evicted from the byte tiers) is encoded again on the manager's executor, and
    /// staged for the byte tiers when the storage has them.
    ///
    /// - Throws: what `value(for:processor:…)` throws; the processor's or decoder's encoding error when the
    ///   value cannot be encoded; `AssetsError.unsupported` when neither encodes variants.
    public func encodedVariant(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType
    ) async throws -> AssetResult<EncodedVariant> {
        try await encodedVariant(
            for: request, processor: processor, options: options, storageType: storageType, priority: nil)
    }

    /// `encodedVariant(for:processor:options:storageType:)` ranked by `priority` (else the current ask's, else
    /// the request's).
    package func encodedVariant(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType, priority: LivePriority?
    ) async throws -> AssetResult<EncodedVariant> {
        let route = try manager.route(for: storageType)
        let variantKey = processor.variantKey(of: runtime.cacheKey(for: request))
        let policy = request.cachePolicy
        if policy == .useCache || policy == .cacheOnly, !route.isMemoryOnly {
            let now = runtime.now()
            if let memory = route.memory, let entry = memory.cachedEntry(forKey: variantKey), !entry.data.isEmpty,
                policy.accepts(entry, at: now)
            {
                return encodedHit(entry, source: .memory)
            }
            if let entry = try await runtime.storedEntry(forKey: variantKey, route: route, bytesOnly: true),
                !entry.data.isEmpty, policy.accepts(entry, at: now)
            {
                keepEncoded(entry.data, metadata: entry.metadata, forKey: variantKey, route: route)
                return encodedHit(entry, source: .storage)
            }
        }
        let made = try await value(
            for: request, processor: processor, options: options, storageType: storageType, priority: priority)
        if let encoded = made.encoded, !encoded.data.isEmpty {
            var metadata = Self.validated(made.metadata, of: encoded.data)
            metadata.contentType = encoded.contentType
            keepEncoded(encoded.data, metadata: metadata, forKey: variantKey, route: route)
            return AssetResult(value: encoded, source: made.source, metadata: metadata, isJoined: made.isJoined)
        }
        let encoded = try await runtime.processLimiter.run(priority: priority) {
            try await runtime.runOnExecutor { try encodedVariant(of: made.value, by: processor) }
        }
        guard let encoded else {
            throw AssetsError.unsupported(
                operation: "encoding variants", backend: "\(decoder.identifier) and \(processor.identifier)")
        }
        var metadata = made.metadata
        metadata.etag = EntityTag.strong(hashing: encoded.data).description
        metadata.contentType = encoded.contentType
        if !route.isMemoryOnly {
            let entry = CacheEntry(data: encoded.data, metadata: metadata)
            try await runtime.stage(entry, forKey: variantKey, route: route, bytesOnly: true)
            keepEncoded(encoded.data, metadata: metadata, forKey: variantKey, route: route)
        }
        return AssetResult(value: encoded, source: made.source, metadata: metadata, isJoined: made.isJoined)
    }

    /// A hit on a variant's bytes as kept, counted by where they were: the memory tier (`.memory`), or the byte
    /// tiers or staged writes (`.storage`).
    private func encodedHit(_ entry: CacheEntry, source: AssetSource) -> AssetResult<EncodedVariant> {
        if source == .memory { countMemoryHit() }
        counters.withLock {
            $0.encodedHits += 1
            if source == .storage { $0.storageHits += 1 }
        }
        let metadata = Self.validated(entry.metadata, of: entry.data)
        return AssetResult(
            value: EncodedVariant(data: entry.data, contentType: metadata.contentType), source: source,
            metadata: metadata)
    }

    /// `metadata` with a strong validator of `data` when it has none (variants stored before validators were
    /// kept get theirs now).
    private static func validated(_ metadata: CacheMetadata, of data: Data) -> CacheMetadata {
        guard metadata.etag == nil else { return metadata }
        var validated = metadata
        validated.etag = EntityTag.strong(hashing: data).description
        return validated
    }

    /// Keeps `data` in the memory tier of a tiered `route` under `key`, beside the decoded variant memory
    /// already holds there (which `value(for:…)` answers from), when it is at most
    /// `Configuration.encodedVariantsInMemory` bytes.
    private func keepEncoded(_ data: Data, metadata: CacheMetadata, forKey key: CacheKey, route: StorageRoute) {
        guard !route.isMemoryOnly, let memory = route.memory, data.count <= configuration.encodedVariantsInMemory
        else { return }
        let decoded = memory.cachedEntry(forKey: key)?.decoded
        memory.insert(CacheEntry(data: data, metadata: metadata, decoded: decoded), forKey: key)
    }
}
