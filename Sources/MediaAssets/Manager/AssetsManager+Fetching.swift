import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AssetsManager {
    /// The cache key of `request`: the key factory's text for its URL, with its version.
    public func cacheKey(for request: AssetRequest) -> CacheKey {
        if let explicitKey = request.explicitKey { return explicitKey }
        return CacheKey(configuration.keyFactory.key(for: request.url), version: request.version)
    }

    /// Returns the asset's entry from the backend for `storageType`, fetching and storing it on a miss.
    ///
    /// A fresh cached entry returns at once; a stale one is revalidated with a conditional GET (a 304
    /// keeps the bytes and refreshes the metadata). Concurrent asks for the same key and storage
    /// share one fetch; a fetch is cancelled only when all of them are. Transient failures are
    /// retried per `configuration.retryPolicy`. A response with `Cache-Control: no-store` is
    /// returned but not stored.
    ///
    /// `decode`, when given, runs on every response before anything is stored (a 200's body, or
    /// the kept bytes after a 304): the object it returns is stored beside the bytes (memory
    /// backends keep it) and returned in the entry; if it throws, nothing is stored and every asker
    /// gets its error — so an invalid download is never persisted. Asks that join a fetch under
    /// way share the first asker's `decode`.
    ///
    /// - Throws: `AssetsError.httpStatus`, `.networkFailure`, `.lengthMismatch`,
    ///   `.responseTooLarge`, `.notCached` (for `.cacheOnly`), `decode`'s error, or `CancellationError`.
    public func entry(
        for request: AssetRequest,
        storageType: StorageType = .disk,
        progress: (@Sendable (FetchProgress) -> Void)? = nil,
        decode: (@Sendable (Data) throws -> DecodedObject)? = nil
    ) async throws -> CacheEntry {
        let key = cacheKey(for: request)
        let backend = try backend(for: storageType)
        var cached: CacheEntry?
        if request.cachePolicy != .reload {
            cached = try await backend.entry(forKey: key)
            if let cached, request.cachePolicy.accepts(cached, at: configuration.now()) {
                fetchCounters.withLock { $0.bytesServedFromCache += cached.data.count }
                return cached
            }
            if cached == nil, request.cachePolicy == .cacheOnly { throw AssetsError.notCached(key: key) }
        }
        let fetchKey = FetchKey(key: key, storageType: storageType)
        let validator = cached
        return try await requestPool.value(for: fetchKey, priority: request.priority.taskPriority, progress: progress) {
            [self] report in
            do {
                return try await fetch(
                    request, key: key, into: backend, revalidating: validator, decode: decode, report: report
                )
            } catch {
                fetchCounters.withLock { $0.failures += 1 }
                throw error
            }
        }
    }

    /// Returns the asset's bytes; see `entry(for:storageType:progress:)`.
    public func data(
        for request: AssetRequest,
        storageType: StorageType = .disk,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> Data {
        try await entry(for: request, storageType: storageType, progress: progress).data
    }

    /// A snapshot of the fetch counters.
    public var fetchStatistics: FetchStatistics {
        var statistics = fetchCounters.withLock { $0 }
        statistics.joins = requestPool.joinCount
        return statistics
    }

    /// Sends `request` through the loader with the retry policy and returns a checked response.
    ///
    /// Use this for requests the cache does not handle as whole entries (byte ranges): it counts
    /// origin requests, retries and bytes like every fetch, and checks the body length.
    public func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> DataResponse {
        let policy = configuration.retryPolicy
        let url = request.url ?? URL(fileURLWithPath: "/")
        var attempt = 0
        while true {
            attempt += 1
            fetchCounters.withLock { $0.originRequests += 1 }
            let response: DataResponse
            do {
                response = try await loader.load(request, progress: progress)
                fetchCounters.withLock { $0.bytesDownloaded += response.data.count }
                try checkLength(of: response)
            } catch {
                if error is CancellationError || (error as? URLError)?.code == .cancelled || Task.isCancelled {
                    throw CancellationError()
                }
                guard RetryPolicy.isTransient(error), attempt < policy.maxAttempts else { throw wrap(error, url: url) }
                try await pause(policy.delay(afterAttempt: attempt, retryAfter: nil))
                continue
            }
            if RetryPolicy.isTransient(status: response.statusCode), attempt < policy.maxAttempts {
                let retryAfter = response.header("retry-after").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
                try await pause(policy.delay(afterAttempt: attempt, retryAfter: retryAfter))
                continue
            }
            return response
        }
    }

    // MARK: Internals

    private func fetch(
        _ request: AssetRequest, key: CacheKey, into backend: any CacheBackend, revalidating cached: CacheEntry?,
        decode: (@Sendable (Data) throws -> DecodedObject)?, report: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> CacheEntry {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let cached {
            if let etag = cached.metadata.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = cached.metadata.lastModified {
                urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
        }
        let response = try await load(urlRequest, progress: report)
        let now = configuration.now()
        let freshness = HTTPFreshness(headers: response.headers)

        if response.statusCode == 304, var entry = cached {
            fetchCounters.withLock {
                $0.revalidations += 1
                $0.bytesServedFromCache += entry.data.count
            }
            entry.metadata.freshUntil = freshness.freshUntil(receivedAt: now, defaultTimeToLive: configuration.defaultTimeToLive)
            entry.metadata.lastAccess = now
            if let etag = response.header("etag") { entry.metadata.etag = etag }
            if let lastModified = response.header("last-modified") { entry.metadata.lastModified = lastModified }
            if let decode, entry.decoded == nil { entry.decoded = try decode(entry.data) }
            if !freshness.noStore { try await backend.store(entry, forKey: key) }
            return entry
        }
        // Only a complete representation becomes an entry: a 206 (partial) or 204 (no content)
        // stored as the whole asset would be wrong bytes.
        guard response.statusCode == 200 || response.statusCode == 203 else {
            throw AssetsError.httpStatus(code: response.statusCode, url: request.url)
        }
        let metadata = CacheMetadata(
            created: now,
            freshUntil: freshness.freshUntil(receivedAt: now, defaultTimeToLive: configuration.defaultTimeToLive),
            etag: response.header("etag"),
            lastModified: response.header("last-modified"),
            contentType: response.header("content-type")
        )
        let entry = CacheEntry(data: response.data, metadata: metadata, decoded: try decode?(response.data))
        if !freshness.noStore { try await backend.store(entry, forKey: key) }
        return entry
    }

    private func checkLength(of response: DataResponse) throws {
        // Loaders other than URLSessionLoader may not enforce the limit themselves.
        if response.data.count > configuration.maxResponseSize {
            throw AssetsError.responseTooLarge(url: response.url, limit: configuration.maxResponseSize)
        }
        guard let declared = response.contentLength, response.header("content-encoding") == nil,
            response.statusCode != 304, declared != response.data.count
        else { return }
        throw AssetsError.lengthMismatch(url: response.url, expected: declared, received: response.data.count)
    }

    private func pause(_ seconds: TimeInterval) async throws {
        fetchCounters.withLock { $0.retries += 1 }
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }

    private func wrap(_ error: Error, url: URL) -> Error {
        if error is AssetsError { return error }
        if let urlError = error as? URLError {
            return AssetsError.networkFailure(url: url, code: urlError.code.rawValue, reason: urlError.localizedDescription)
        }
        return AssetsError.networkFailure(url: url, code: 0, reason: String(describing: error))
    }
}
