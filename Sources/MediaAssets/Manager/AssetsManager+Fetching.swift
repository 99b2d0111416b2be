import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AssetsManager {
    /// The cache key of `request`: its explicit key, else the key factory's text for its URL with its version,
    /// and the headers that may choose a representation (see `AssetRequest.headers`) as `@headers(…)`.
    public func cacheKey(for request: AssetRequest) -> CacheKey {
        if let key = request.key { return key }
        let key = CacheKey(configuration.keyFactory.key(for: request.url), version: request.version)
        return request.keyedHeadersIdentifier.map(key.variant) ?? key
    }

    /// Returns the asset's entry from the backend for `storageType`, fetching it on a miss.
    ///
    /// A fresh cached entry returns at once; a stale one is revalidated with a conditional GET (a 304
    /// keeps the bytes and refreshes the metadata), or served at once under `stale-while-revalidate`
    /// while one background request revalidates it, or served when the origin fails under
    /// `stale-if-error`. Concurrent asks for the same key, storage and cache policy share one flight,
    /// and the cache lookup runs inside it, so an ask that comes just after a flight finished reads
    /// its result instead of downloading again; asks through different storage types share the download
    /// itself, and each storage gets the bytes. A fetch is cancelled only when all askers are (a body that had
    /// arrived by then is stored all the same, within `stagedWriteLimit`), and runs at the highest priority of
    /// its askers: `priority` (else `LivePriority.current`, else the request's).
    /// Transient failures are retried per `configuration.retryPolicy`. A response with
    /// `Cache-Control: no-store` is returned but not stored.
    ///
    /// The result is returned before it is written: the write runs in the background and reads see
    /// it meanwhile (`waitForPendingWrites()` awaits it). To decode, process or keep decoded objects in
    /// memory, use an `AssetPipeline` (or a util built on one): the one way to decode through the manager,
    /// which coalesces each stage by its own key.
    ///
    /// - Throws: `AssetsError.httpStatus`, `.networkFailure`, `.lengthMismatch`,
    ///   `.responseTooLarge`, `.notCached` (for `.cacheOnly`), or `CancellationError`.
    public func entry(
        for request: AssetRequest,
        storageType: StorageType = .disk,
        priority: LivePriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> CacheEntry {
        let route = try self.route(for: storageType)
        let fetched = try await LivePriority.withAskPriority(priority, request: request) {
            try await fetchOriginal(
                request, route: route, bytesOnly: false, tracking: FetchTracking(progress: progress))
        }
        if fetched.revalidatesInBackground {
            revalidateInBackground(fetched.key, route: route, bytesOnly: false) { [self] in
                var revalidation = request
                revalidation.cachePolicy = .revalidate
                _ = try await entry(for: revalidation, storageType: storageType)
            }
        }
        fetched.staged.map(pendingWrites.commit)
        return fetched.entry
    }

    /// Returns the asset's bytes; see `entry(for:storageType:priority:progress:)`.
    public func data(
        for request: AssetRequest,
        storageType: StorageType = .disk,
        priority: LivePriority? = nil,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> Data {
        try await entry(for: request, storageType: storageType, priority: priority, progress: progress).data
    }

    /// Fetches `request`'s bytes into `storageType`'s byte tiers unless they are there (a prefetch: nothing
    /// decodes them, and a memory tier is left alone).
    func prefetchBytes(_ request: AssetRequest, storageType: StorageType) async throws {
        let route = try self.route(for: storageType)
        let fetched = try await fetchOriginal(request, route: route, bytesOnly: true)
        fetched.staged.map(pendingWrites.commit)
        if fetched.revalidatesInBackground {
            revalidateInBackground(fetched.key, route: route, bytesOnly: true) { [self] in
                var revalidation = request
                revalidation.cachePolicy = .revalidate
                try await prefetchBytes(revalidation, storageType: storageType)
            }
        }
    }

    /// A snapshot of the fetch counters.
    public var fetchStatistics: FetchStatistics {
        var statistics = fetchCounters.withLock { $0 }
        statistics.joins = joinCounter.value
        statistics.storeFailures = pendingWrites.failureCount
        return statistics
    }

    /// Sends `request` through the loader with the retry policy and returns a checked response.
    ///
    /// Use this for requests the cache does not handle as whole entries (byte ranges): it counts
    /// origin requests, retries and bytes like every fetch, checks the body length, and makes only the
    /// connections `configuration.fetchPolicy` allows.
    public func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> DataResponse {
        try await retrying(request, inDownloadSlots: false) { try await loadAttempt(request, progress: progress) }
    }

    /// Sends `request` through the loader and returns as soon as the response head arrived, the body
    /// streaming behind it.
    ///
    /// Transient failures and statuses are retried per the retry policy until a head arrives (never once
    /// body bytes were handed on). Origin requests and bytes are counted like every fetch, and the body is
    /// checked as it arrives against `Configuration.maxResponseSize` and, when it ends, against its
    /// `Content-Length`; its transport errors arrive as `AssetsError.networkFailure`. Only the connections
    /// `configuration.fetchPolicy` allows are made. Use this where a reader wants the first bytes before the
    /// last (video, progressive previews).
    ///
    /// - Throws: `AssetsError` and `CancellationError` before the head, as `load(_:progress:)`.
    public func stream(_ request: URLRequest) async throws -> StreamedResponse {
        try await retrying(request, inDownloadSlots: false) {
            try await loader.stream(request, policy: configuration.fetchPolicy)
        } finish: { response in
            checkingBody(of: response, requested: request.url)
        }
    }

    private func loadAttempt(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        let response = try await loader.load(request, policy: configuration.fetchPolicy, progress: progress)
        fetchCounters.withLock { $0.bytesDownloaded += response.data.count }
        try checkLength(received: response.data.count, of: response.head)
        return response
    }

    /// `response` with its body counted and checked as it arrives: the size limit on every piece, the
    /// `Content-Length` at the end, transport errors wrapped.
    private func checkingBody(of response: StreamedResponse, requested: URL?) -> StreamedResponse {
        let url = requested ?? response.head.url
        let head = response.head
        let received = Mutex(0)
        let limit = configuration.maxResponseSize
        var response = response
        response.body = response.body.checking(
            piece: { [self] piece in
                let total = received.withLock { received -> Int in
                    received += piece.count
                    return received
                }
                fetchCounters.withLock { $0.bytesDownloaded += piece.count }
                if total > limit { throw AssetsError.responseTooLarge(url: head.url, limit: limit) }
            },
            end: { [self] in try checkLength(received: received.withLock { $0 }, of: head) },
            failure: { [self] error in
                if Self.isCancellation(error) { return CancellationError() }
                return wrap(error, url: url)
            }
        )
        return response
    }

    /// Runs attempts of `request` until one answers with a status that is not transient, or the retry policy
    /// gives up, and returns what `finish` makes of that answer.
    ///
    /// With `inDownloadSlots`, each attempt and its `finish` hold a download slot (the host's, then the
    /// manager's); the wait between attempts (the backoff, or the `Retry-After` a 429 or 503 asks for) holds
    /// none, and the next attempt queues again at the ask's priority as it is then.
    private func retrying<Response: Sendable, Result: Sendable>(
        _ request: URLRequest, inDownloadSlots: Bool, _ attempt: () async throws -> Response,
        finish: (Response) async throws -> Result
    ) async throws -> Result where Response: RespondingWithHead {
        let policy = configuration.retryPolicy
        let url = request.url ?? URL(fileURLWithPath: "/")
        var attempts = 0
        while true {
            attempts += 1
            let mayRetry = attempts < policy.maxAttempts
            func run() async throws -> RetryOutcome<Result> {
                fetchCounters.withLock { $0.originRequests += 1 }
                let response: Response
                do {
                    response = try await attempt()
                } catch {
                    if Self.isRefusalBeforeConnecting(error, of: url) {
                        // Counted as a request when it started; it never reached the origin.
                        fetchCounters.withLock {
                            $0.originRequests -= 1
                            $0.refusals += 1
                        }
                    }
                    if Self.isCancellation(error) || Task.isCancelled { throw CancellationError() }
                    guard mayRetry, RetryPolicy.isTransient(error) else { throw wrap(error, url: url) }
                    return .retry(after: policy.delay(afterAttempt: attempts, retryAfter: nil))
                }
                let head = response.head
                if mayRetry, RetryPolicy.isTransient(status: head.statusCode) {
                    let retryAfter = RetryPolicy.retryAfter(
                        head.header("retry-after"), date: head.header("date"), now: configuration.now())
                    return .retry(after: policy.delay(afterAttempt: attempts, retryAfter: retryAfter))
                }
                return .finished(try await finish(response))
            }
            let outcome = inDownloadSlots ? try await inDownloadSlot(for: url, run) : try await run()
            switch outcome {
            case .finished(let result): return result
            case .retry(let delay): try await pause(delay)
            }
        }
    }

    /// Runs attempts of `request` as `retrying(_:inDownloadSlots:_:finish:)` does, returning the answer itself.
    private func retrying<Response: Sendable & RespondingWithHead>(
        _ request: URLRequest, inDownloadSlots: Bool, _ attempt: () async throws -> Response
    ) async throws -> Response {
        try await retrying(request, inDownloadSlots: inDownloadSlots, attempt, finish: { $0 })
    }

    /// Runs `operation` holding a download slot: its host's first (when the fetch policy bounds hosts), then
    /// one of the manager's, so that a busy host never holds the manager's slots while its downloads queue.
    private func inDownloadSlot<T: Sendable>(for url: URL, _ operation: () async throws -> T) async throws -> T {
        guard let hostLimiter else { return try await fetchLimiter.run(operation) }
        return try await hostLimiter.run(host: HostLimiter.host(of: url)) { try await fetchLimiter.run(operation) }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? URLError)?.code == .cancelled
    }

    /// Whether `error` is the fetch policy refusing `url` itself, before any connection: a refusal at a redirect
    /// names the redirect's target, or the redirect limit or loop, after the first hop reached the origin.
    private static func isRefusalBeforeConnecting(_ error: any Error, of url: URL) -> Bool {
        guard case .fetchRefused(let refused, let refusal)? = error as? AssetsError, refused == url else {
            return false
        }
        switch refusal {
        case .scheme, .host, .address: return true
        case .redirectLimit, .redirectLoop: return false
        }
    }

    // MARK: The fetch stage

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

    /// Loads `urlRequest` in a download slot, retrying outside it; with `streamingPieces`, streams the body and
    /// passes each piece of a complete representation (200, 203) on with its progress report.
    private func transfer(
        _ urlRequest: URLRequest, streamingPieces: Bool, report: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> DataResponse {
        guard streamingPieces else {
            return try await retrying(urlRequest, inDownloadSlots: true) {
                try await loadAttempt(urlRequest, progress: report)
            }
        }
        return try await retrying(urlRequest, inDownloadSlots: true) {
            try await loader.stream(urlRequest, policy: configuration.fetchPolicy)
        } finish: { response in
            let response = checkingBody(of: response, requested: urlRequest.url)
            let head = response.head
            let passesPieces = head.statusCode == 200 || head.statusCode == 203
            let expected = head.contentLength.map(Int64.init)
            // Grown as bytes arrive: a declared length is not trusted with an allocation.
            var data = Data()
            for try await piece in response.body {
                data.append(piece)
                report(
                    FetchProgress(
                        receivedBytes: Int64(data.count), expectedBytes: expected, piece: passesPieces ? piece : nil))
            }
            return DataResponse(url: head.url, statusCode: head.statusCode, headers: head.headers, data: data)
        }
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

    private func checkLength(received: Int, of head: ResponseHead) throws {
        // Loaders other than URLSessionLoader may not enforce the limit themselves.
        if received > configuration.maxResponseSize {
            throw AssetsError.responseTooLarge(url: head.url, limit: configuration.maxResponseSize)
        }
        guard let declared = head.contentLength, head.header("content-encoding") == nil,
            head.statusCode != 304, declared != received
        else { return }
        throw AssetsError.lengthMismatch(url: head.url, expected: declared, received: received)
    }

    private func pause(_ seconds: TimeInterval) async throws {
        fetchCounters.withLock { $0.retries += 1 }
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }

    private func wrap(_ error: Error, url: URL) -> Error {
        if error is AssetsError { return error }
        if let urlError = error as? URLError {
            return AssetsError.networkFailure(
                url: url, code: urlError.code.rawValue, reason: urlError.localizedDescription)
        }
        return AssetsError.networkFailure(url: url, code: 0, reason: String(describing: error))
    }
}

/// What one attempt of a fetch came to: an answer to return, or a wait before the next attempt.
private enum RetryOutcome<Result: Sendable>: Sendable {
    case finished(Result)
    case retry(after: TimeInterval)
}

/// A response whose status decides whether to retry it.
protocol RespondingWithHead {
    var head: ResponseHead { get }
}

extension DataResponse: RespondingWithHead {}
extension StreamedResponse: RespondingWithHead {}
