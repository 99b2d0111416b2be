import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension PipelineRuntime {
    /// The byte ask behind `AssetsManager.data(for:storageType:progress:)`: the fetch stage with every tier
    /// stored, the write committed at once (nothing decodes the bytes), and one background revalidation when
    /// the entry was served stale.
    func entry(
        for request: AssetRequest, route: StorageRoute, priority: LivePriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> CacheEntry {
        let fetched = try await LivePriority.withAskPriority(priority, request: request) {
            try await fetchOriginal(
                request, route: route, bytesOnly: false, tracking: FetchTracking(progress: progress))
        }
        if fetched.revalidatesInBackground {
            revalidateInBackground(fetched.key, route: route, bytesOnly: false) { [self] in
                var revalidation = request
                revalidation.cachePolicy = .revalidate
                _ = try await entry(for: revalidation, route: route)
            }
        }
        fetched.staged.map(pendingWrites.commit)
        return fetched.entry
    }

    /// Fetches `request`'s bytes into `route`'s byte tiers unless they are there (a prefetch: nothing decodes
    /// them, and a memory tier is left alone).
    func prefetchBytes(_ request: AssetRequest, route: StorageRoute) async throws {
        let fetched = try await fetchOriginal(request, route: route, bytesOnly: true)
        fetched.staged.map(pendingWrites.commit)
        if fetched.revalidatesInBackground {
            revalidateInBackground(fetched.key, route: route, bytesOnly: true) { [self] in
                var revalidation = request
                revalidation.cachePolicy = .revalidate
                try await prefetchBytes(revalidation, route: route)
            }
        }
    }

    /// The fetch stage: the stored bytes when the cache policy accepts them, else the network.
    ///
    /// Coalesced per key, storage type and cache policy, with the lookup inside the flight; the download
    /// behind a miss is coalesced per key alone (`downloads`), so flights of several storage types share it
    /// and each stages its own write. A download comes back *staged unvalidated*: the caller commits it once
    /// it decoded (`pendingWrites.commit`) or discards it, so bytes that do not decode are never stored.
    func fetchOriginal(
        _ request: AssetRequest, route: StorageRoute, bytesOnly: Bool, tracking: FetchTracking = .none
    ) async throws -> FetchedOriginal {
        let key = cacheKey(for: request)
        let flightKey = FetchKey(key: key, storageType: route.storageType, cachePolicy: request.cachePolicy)
        // A flight every asker left after its download arrived and was staged keeps the bytes.
        let abandonment = keepingAbandoned { [self] (fetched: FetchedOriginal) in keep(fetched, tracking: tracking) }
        return try await requestPool.value(for: flightKey, progress: tracking.progress, abandonment: abandonment) {
            [self] report in
            try await fetchFlight(
                request, key: key, route: route, bytesOnly: bytesOnly, tracking: tracking.forwarding(to: report))
        }
    }

    private func fetchFlight(
        _ request: AssetRequest, key: CacheKey, route: StorageRoute, bytesOnly: Bool, tracking: FetchTracking
    ) async throws -> FetchedOriginal {
        let policy = request.cachePolicy
        var cached: CacheEntry?
        if policy != .reload {
            // A download of this key that every asker left may still be ending with every byte in: its bytes are
            // staged before it ends, so they are read below instead of fetched again.
            await downloads.waitForAbandonedFlights { $0.key == key }
            // Bytes staged unvalidated (a download decoding, or kept after its askers left) are read back, so
            // they are not fetched again; the pipeline commits them once they decode.
            let unvalidated = pendingWrites.unvalidated(for: .init(storageType: route.storageType, key: key))
            if let unvalidated {
                cached = unvalidated.entry
            } else {
                cached = try await storedEntry(forKey: key, route: route, bytesOnly: bytesOnly)
            }
            let now = configuration.now()
            if let cached, policy.accepts(cached, at: now) {
                fetchCounters.withLock { $0.bytesServedFromCache += cached.data.count }
                return FetchedOriginal(
                    key: key, entry: cached, source: .storage, awaitingValidation: unvalidated?.token)
            }
            if let cached, policy == .useCache, cached.canServeStaleWhileRevalidating(at: now) {
                fetchCounters.withLock { $0.staleServed += 1 }
                return FetchedOriginal(key: key, entry: cached, source: .stale, revalidatesInBackground: true)
            }
            if cached == nil, policy == .cacheOnly { throw AssetsError.notCached(key: key) }
        }
        do {
            return try await download(
                request, key: key, route: route, bytesOnly: bytesOnly, revalidating: cached, tracking: tracking
            )
        } catch {
            if let cached, Self.allowsStaleIfError(error), cached.canServeStaleIfError(at: configuration.now()) {
                fetchCounters.withLock { $0.staleServed += 1 }
                return FetchedOriginal(key: key, entry: cached, source: .stale)
            }
            let cancelled = error is CancellationError || Task.isCancelled
            fetchCounters.withLock {
                if cancelled { $0.cancellations += 1 } else { $0.failures += 1 }
            }
            throw error
        }
    }

    /// RFC 5861 serves stale content when the origin cannot be reached or answers 500, 502, 503 or 504.
    private static func allowsStaleIfError(_ error: Error) -> Bool {
        switch error as? AssetsError {
        case .networkFailure?: return true
        case .httpStatus(let code, _)?: return [500, 502, 503, 504].contains(code)
        default: return false
        }
    }

    private func download(
        _ request: AssetRequest, key: CacheKey, route: StorageRoute, bytesOnly: Bool, revalidating cached: CacheEntry?,
        tracking: FetchTracking
    ) async throws -> FetchedOriginal {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let cached {
            if let etag = cached.metadata.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = cached.metadata.lastModified {
                urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
        }
        let downloadKey = DownloadKey(
            key: key, etag: cached?.metadata.etag, lastModified: cached?.metadata.lastModified)
        // Bytes that arrive after every asker left are kept for this flight's storage, if staged writes have room.
        let abandonment = keepingAbandoned { [self] (response: DataResponse) in
            let kept = try? await stored(
                response, of: request, key: key, route: route, bytesOnly: bytesOnly, revalidating: cached,
                waitsForRoom: false)
            if let kept { keep(kept, tracking: tracking) }
        }
        let response = try await downloads.value(
            for: downloadKey, progress: tracking.progress, abandonment: abandonment
        ) { [self, urlRequest] report in
            try await transfer(urlRequest, streamingPieces: tracking.receivesBodyPieces, report: report)
        }
        return try await stored(
            response, of: request, key: key, route: route, bytesOnly: bytesOnly, revalidating: cached,
            waitsForRoom: true)
    }

    /// What a download's `response` becomes for `route`: a 304 refreshes `cached`'s metadata, a complete
    /// representation is staged unvalidated. With `waitsForRoom` false (no asker waits for it), its staging is
    /// made only if staged writes have room now, else it is dropped and counted.
    private func stored(
        _ response: DataResponse, of request: AssetRequest, key: CacheKey, route: StorageRoute, bytesOnly: Bool,
        revalidating cached: CacheEntry?, waitsForRoom: Bool
    ) async throws -> FetchedOriginal {
        let now = configuration.now()
        var freshness = HTTPFreshness(headers: response.headers, now: now)
        // RFC 9111 §4.1: a response that varies on a header the key leaves out is not stored (nor `Vary: *`).
        if !HTTPVary(header: response.header("vary")).allowsStoring(for: request) { freshness.noStore = true }

        if response.statusCode == 304, var entry = cached {
            fetchCounters.withLock {
                $0.revalidations += 1
                $0.bytesServedFromCache += entry.data.count
            }
            freshness.apply(to: &entry.metadata, receivedAt: now, policy: configuration.freshnessPolicy)
            entry.metadata.lastAccess = now
            if let etag = response.header("etag") { entry.metadata.etag = etag }
            if let lastModified = response.header("last-modified") { entry.metadata.lastModified = lastModified }
            // The bytes were valid before; only their metadata changes.
            if !freshness.noStore {
                try await stageMetadataUpdate(
                    entry, forKey: key, route: route, bytesOnly: bytesOnly, waitsForRoom: waitsForRoom)
            }
            return FetchedOriginal(key: key, entry: entry, source: .network)
        }
        // Only a complete representation becomes an entry: a 206 (partial) or 204 (no content)
        // stored as the whole asset would be wrong bytes.
        guard response.statusCode == 200 || response.statusCode == 203 else {
            throw AssetsError.httpStatus(code: response.statusCode, url: request.url)
        }
        var metadata = CacheMetadata(
            created: now,
            etag: response.header("etag"),
            lastModified: response.header("last-modified"),
            contentType: response.header("content-type")
        )
        freshness.apply(to: &metadata, receivedAt: now, policy: configuration.freshnessPolicy)
        let entry = CacheEntry(data: response.data, metadata: metadata)
        guard !freshness.noStore else { return FetchedOriginal(key: key, entry: entry, source: .network) }
        let slot = PendingWrites.Slot(storageType: route.storageType, key: key)
        let write = writer(forKey: key, route: route, bytesOnly: bytesOnly)
        let staged: PendingWrites.Token?
        if waitsForRoom {
            do {
                staged = try await pendingWrites.stage(entry, at: slot, validated: false, write: write)
            } catch {
                // Cancelled while it waited for room: every asker left, and there is no room to keep the bytes.
                fetchCounters.withLock { $0.abandonedDownloadsDropped += 1 }
                throw error
            }
        } else {
            staged = pendingWrites.stageIfRoom(entry, at: slot, validated: false, write: write)
            if staged == nil { fetchCounters.withLock { $0.abandonedDownloadsDropped += 1 } }
        }
        return FetchedOriginal(key: key, entry: entry, source: .network, staged: staged)
    }

    /// Stages a valid entry and starts writing it; reads see it until the write is done. Waits for room while
    /// staged writes are at their byte limit.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (nothing is staged).
    func stage(_ entry: CacheEntry, forKey key: CacheKey, route: StorageRoute, bytesOnly: Bool) async throws {
        try await pendingWrites.stage(
            entry, at: .init(storageType: route.storageType, key: key), validated: true,
            write: writer(forKey: key, route: route, bytesOnly: bytesOnly)
        )
    }

    /// Stages a revalidated entry (reads see it at once) and replaces its metadata in the backend,
    /// storing it whole only if the backend no longer holds it. Waits for room as `stage` does.
    private func stageMetadataUpdate(
        _ entry: CacheEntry, forKey key: CacheKey, route: StorageRoute, bytesOnly: Bool, waitsForRoom: Bool
    ) async throws {
        let store = writer(forKey: key, route: route, bytesOnly: bytesOnly)
        let slot = PendingWrites.Slot(storageType: route.storageType, key: key)
        let write: @Sendable (CacheEntry) async throws -> Void = { entry in
            if try await !route.updateMetadata(entry.metadata, forKey: key) { try await store(entry) }
        }
        if waitsForRoom {
            try await pendingWrites.stage(entry, at: slot, validated: true, write: write)
        } else {
            // No asker waits: the metadata is refreshed if there is room now; else the next ask revalidates again.
            _ = pendingWrites.stageIfRoom(entry, at: slot, validated: true, write: write)
        }
    }

    private func writer(
        forKey key: CacheKey, route: StorageRoute, bytesOnly: Bool
    ) -> @Sendable (CacheEntry) async throws -> Void {
        { entry in
            if bytesOnly {
                try await route.storeBytes(entry, forKey: key)
            } else {
                try await route.store(entry, forKey: key)
            }
        }
    }

    /// The entry of `key` for the fetch stage: a staged write first (validated or not), then the
    /// byte tiers (`bytesOnly`) or every tier.
    func storedEntry(forKey key: CacheKey, route: StorageRoute, bytesOnly: Bool) async throws -> CacheEntry? {
        let slot = PendingWrites.Slot(storageType: route.storageType, key: key)
        if let staged = pendingWrites.entry(for: slot, includingUnvalidated: true) { return staged }
        return bytesOnly ? try await route.storedEntry(forKey: key) : try await route.backend.entry(forKey: key)
    }

    /// Runs `revalidation` in the background unless one for the same key and storage type is under way,
    /// or the entry is fresh again by then (an ask that read it stale just before a revalidation ended).
    func revalidateInBackground(
        _ key: CacheKey, route: StorageRoute, bytesOnly: Bool,
        _ revalidation: @escaping @Sendable () async throws -> Void
    ) {
        let slot = PendingWrites.Slot(storageType: route.storageType, key: key)
        guard revalidations.withLock({ $0.insert(slot).inserted }) else { return }
        // Its own low priority: not the priority of the ask or flight that found the entry stale.
        runInBackground(priority: .utility) { [self] in
            await LivePriority.$current.withValue(LivePriority(.low)) {
                await revalidate(slot, route: route, bytesOnly: bytesOnly, revalidation)
            }
        }
    }

    private func revalidate(
        _ slot: PendingWrites.Slot, route: StorageRoute, bytesOnly: Bool,
        _ revalidation: @escaping @Sendable () async throws -> Void
    ) async {
        defer { revalidations.withLock { _ = $0.remove(slot) } }
        if let current = try? await storedEntry(forKey: slot.key, route: route, bytesOnly: bytesOnly),
            current.isFresh(at: configuration.now())
        {
            return
        }
        fetchCounters.withLock { $0.backgroundRevalidations += 1 }
        try? await revalidation()
    }
}

extension PipelineRuntime {
    // MARK: Downloads kept after their askers left

    // Cancellation stops work that has not happened, never bytes that arrived: what a download or fetch flight
    // returns after every asker left is staged if staged writes have room (`stagedWriteLimit`), then validated in
    // the background by the pipeline that asked and written, so the next ask for it is a storage hit.

    /// Counts a flight that every asker left in `keptDownloads` until it ended and `keep` ran on what it returned,
    /// so `waitForPendingWrites()` and `shutdown()` wait for the bytes it keeps.
    func keepingAbandoned<Value>(
        _ keep: @escaping @Sendable (Value) async -> Void
    ) -> FlightAbandonment<Value> {
        FlightAbandonment(
            begin: { [keptDownloads] in keptDownloads.begin() },
            end: { [self] value in
                if let value { await keep(value) }
                keptDownloads.end()
            })
    }

    /// Keeps a download staged unvalidated that no asker waits for: validated in the background by the pipeline
    /// that asked (`FetchTracking.keepAbandoned`), else committed as the manager's byte fetches commit theirs.
    func keep(_ fetched: FetchedOriginal, tracking: FetchTracking) {
        guard let staged = fetched.staged else { return }
        if let keepAbandoned = tracking.keepAbandoned {
            keepAbandoned(staged, fetched.entry)
        } else {
            pendingWrites.commit(staged)
        }
    }
}

/// What the request pool coalesces on: the same key into the same storage.
struct FetchKey: Hashable, Sendable {
    var key: CacheKey
    var storageType: StorageType
    /// A `.reload` must not join a `.useCache` flight, which may answer from the cache.
    var cachePolicy: AssetRequest.CachePolicy
}

/// What download flights coalesce on: what is fetched, whatever storage each asker reads and writes.
struct DownloadKey: Hashable, Sendable {
    var key: CacheKey
    /// The validators of a conditional GET: a 304 answers only an asker that holds those bytes.
    var etag: String?
    var lastModified: String?
}

/// How one ask follows its fetch: progress reports, and whether a download it starts streams its body so
/// that those reports carry the pieces.
struct FetchTracking: Sendable {
    var progress: (@Sendable (FetchProgress) -> Void)?
    var receivesBodyPieces = false
    /// What becomes of a download staged unvalidated once no asker waits for it (every asker left after its
    /// bytes arrived): the pipeline validates it in the background, then commits or discards it. Without it (the
    /// manager's byte fetches, which store what they download unvalidated) the staging is committed.
    var keepAbandoned: (@Sendable (PendingWrites.Token, CacheEntry) -> Void)?

    static let none = FetchTracking()

    /// The same wishes, reported through a flight's `report` to every asker of the flight.
    func forwarding(to report: @escaping @Sendable (FetchProgress) -> Void) -> FetchTracking {
        FetchTracking(progress: report, receivesBodyPieces: receivesBodyPieces, keepAbandoned: keepAbandoned)
    }
}

/// What the fetch stage found: the entry, where it came from, and its staged write, if any.
struct FetchedOriginal: Sendable {
    var key: CacheKey
    var entry: CacheEntry
    var source: AssetSource
    /// A download staged unvalidated: commit it once it decoded, or discard it.
    var staged: PendingWrites.Token?
    /// Bytes read back from a staging that still waits for its decode (another flight's download, or one kept
    /// after its askers left): the pipeline commits it once they decode.
    var awaitingValidation: PendingWrites.Token?
    /// Served stale under `stale-while-revalidate`: the caller starts one background revalidation.
    var revalidatesInBackground = false
}
