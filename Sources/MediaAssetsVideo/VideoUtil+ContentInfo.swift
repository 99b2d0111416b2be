import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoUtil {
    /// Returns the length, type and validators of the video `request` names.
    ///
    /// From memory or the `#meta` record when known; otherwise from a first request for chunk 0
    /// (`Range: bytes=0-<chunkSize-1>`), whose `Content-Range` gives the total and whose body is
    /// stored as chunk 0. Concurrent first asks share that request.
    ///
    /// - Throws: `VideoError.contentRangeMismatch`, `.shortBody` or `.fetchFailed`; `CancellationError`.
    public func contentInfo(for request: AssetRequest) async throws -> VideoContentInfo {
        try await resourceState(for: request).resource.info
    }

    /// The key of `request` and what is known of it, probing the origin when nothing is.
    func resourceState(for request: AssetRequest) async throws -> (key: CacheKey, resource: ResourceState) {
        let key = manager.cacheKey(for: request)
        if let known = state.withLock({ $0.resources[key] }) { return (key, known) }
        if let record = try await storedRecord(for: key) {
            if record.chunkSize == configuration.chunkSize {
                let resource = ResourceState(info: record.info, isCacheable: isCacheable(record.info.length))
                let remembered = state.withLock { state -> ResourceState in
                    if let known = state.resources[key] { return known }
                    state._remember(key, resource)
                    return resource
                }
                return (key, remembered)
            }
            // Cut with another chunk size: those chunks cannot be read with this layout.
            let layout = ChunkLayout(chunkSize: record.chunkSize, length: record.info.length)
            try await removeChunks(of: key, layouts: [layout])
        }
        let info = try await probePool.value(for: key) { [self] _ in try await probe(request, key: key) }
        if let known = state.withLock({ $0.resources[key] }), known.info == info { return (key, known) }
        // Removed or replaced meanwhile: read with what the probe saw; its chunks are not stored.
        return (key, ResourceState(info: info, isCacheable: isCacheable(info.length)))
    }

    /// Whether a resource of `length` bytes fits the storage budget.
    func isCacheable(_ length: Int) -> Bool {
        if let limit = configuration.maxCachedResourceSize { return length <= limit }
        guard let backend = try? manager.backend(for: configuration.storageType),
            let limit = backend.byteLimit
        else { return true }
        return length <= limit
    }

    /// The decoded `#meta` record of `key`, or `nil` when missing or unreadable.
    func storedRecord(for key: CacheKey) async throws -> ChunkRecord? {
        guard let entry = try await manager.cachedEntry(forKey: key.chunkRecord, storageType: configuration.storageType)
        else { return nil }
        return ChunkRecord.decode(entry.data)
    }

    /// Removes the chunks of every layout in `layouts`, and the meta record.
    func removeChunks(of key: CacheKey, layouts: [ChunkLayout]) async throws {
        let storageType = configuration.storageType
        // One call where the backend selects by prefix; key by key where it cannot.
        do {
            try await manager.backend(for: storageType).removeEntries(.keyPrefix(key.chunkPrefix))
            return
        } catch AssetsError.unsupported {}
        try await manager.removeData(forKey: key.chunkRecord, storageType: storageType)
        let counts = Set(layouts.map(\.chunkCount))
        for index in 0..<(counts.max() ?? 0) {
            try await manager.removeData(forKey: key.chunk(index), storageType: storageType)
        }
    }

    /// Makes `info` the current content of `key`: remembered, and its meta record stored when cacheable.
    @discardableResult
    func adopt(_ info: VideoContentInfo, key: CacheKey) async -> ResourceState {
        let resource = ResourceState(info: info, isCacheable: isCacheable(info.length))
        state.withLock { $0._remember(key, resource) }
        let record = ChunkRecord(info: info, chunkSize: configuration.chunkSize)
        if resource.isCacheable, let bytes = try? record.encoded() {
            let entry = CacheEntry(data: bytes, metadata: metadata(for: info))
            // A record that fails to store only costs a probe next time.
            try? await manager.store(entry, forKey: key.chunkRecord, storageType: configuration.storageType)
        }
        return resource
    }

    /// The metadata every chunk and record of `info` carries; its ETag ties chunks to their content.
    func metadata(for info: VideoContentInfo) -> CacheMetadata {
        CacheMetadata(
            created: manager.configuration.now(), etag: info.etag, lastModified: info.lastModified,
            contentType: info.contentType
        )
    }

    /// Asks for chunk 0 to learn the resource; stores the chunk and the meta record.
    private func probe(_ asset: AssetRequest, key: CacheKey) async throws -> VideoContentInfo {
        let head = 0..<configuration.chunkSize
        let url = asset.url
        let response = try await send(rangeRequest(asset, bytes: head, info: nil), url: url, range: head)
        switch response.statusCode {
        case 206:
            let contentRange = ContentRange(response.header("content-range"))
            guard let contentRange, let total = contentRange.total,
                contentRange.range == 0..<min(configuration.chunkSize, total)
            else {
                let actual = response.header("content-range")
                throw VideoError.contentRangeMismatch(url: url, expected: head, actual: actual)
            }
            let expected = 0..<min(configuration.chunkSize, total)
            guard response.data.count == expected.count else {
                throw VideoError.shortBody(url: url, expected: expected, receivedBytes: response.data.count)
            }
            let info = Self.info(of: response, length: total)
            let resource = await adopt(info, key: key)
            if resource.isCacheable {
                await storeChunks(of: response.data, startingAt: 0, key: key, info: info, onlyMissing: false)
            }
            return info
        case 200:
            let info = Self.info(of: response, length: response.data.count)
            let resource = await adopt(info, key: key)
            if resource.isCacheable {
                await storeChunks(of: response.data, startingAt: 0, key: key, info: info, onlyMissing: false)
            }
            return info
        case 416:
            // Only an empty resource has no byte 0.
            guard let contentRange = ContentRange(response.header("content-range")), contentRange.total == 0 else {
                throw VideoError.fetchFailed(url: url, range: head, underlying: .httpStatus(code: 416, url: url))
            }
            let info = Self.info(of: response, length: 0)
            await adopt(info, key: key)
            return info
        default:
            throw VideoError.fetchFailed(
                url: url, range: head, underlying: .httpStatus(code: response.statusCode, url: url)
            )
        }
    }

    static func info(of response: DataResponse, length: Int) -> VideoContentInfo {
        VideoContentInfo(
            length: length, contentType: response.header("content-type"), etag: response.header("etag"),
            lastModified: response.header("last-modified")
        )
    }

    /// A GET of `bytes` with the asset's headers, and `If-Range` when `info` has a validator.
    func rangeRequest(_ asset: AssetRequest, bytes: Range<Int>, info: VideoContentInfo?) -> URLRequest {
        var request = URLRequest(url: asset.url)
        for (name, value) in asset.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("bytes=\(bytes.lowerBound)-\(bytes.upperBound - 1)", forHTTPHeaderField: "Range")
        if let validator = info?.rangeValidator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        return request
    }

    /// Sends `request` through the manager, counting it; failures become `VideoError.fetchFailed`.
    func send(_ request: URLRequest, url: URL, range: Range<Int>) async throws -> DataResponse {
        state.withLock { $0.statistics.rangeRequests += 1 }
        do {
            let response = try await manager.load(request)
            state.withLock { $0.statistics.bytesFetched += response.data.count }
            return response
        } catch let error as AssetsError {
            throw VideoError.fetchFailed(url: url, range: range, underlying: error)
        }
    }
}
