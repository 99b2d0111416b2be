import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoUtil {
    /// Returns the length, type and validators of the video `request` names.
    ///
    /// From a download, memory or the `#meta` record when known; otherwise from a first request for
    /// chunk 0 (`Range: bytes=0-<chunkSize-1>`), which returns as soon as its head arrived (its
    /// `Content-Range` gives the total) while its body goes on to be stored as chunk 0 and to readers
    /// of it. Concurrent first asks share that request.
    ///
    /// - Throws: `VideoError.contentRangeMismatch`, `AssetsError` for a failed fetch; `CancellationError`.
    public func contentInfo(for request: AssetRequest) async throws -> VideoContentInfo {
        if let local = downloadedFile(for: request) { return local.info }
        return try await resourceState(for: request).resource.info
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
        if resource.isCacheable { await storeRecord(of: info, key: key) }
        return resource
    }

    /// Stores the `#meta` record of `info` (the content's length, type and validators, and the chunk size).
    private func storeRecord(of info: VideoContentInfo, key: CacheKey) async {
        let record = ChunkRecord(info: info, chunkSize: configuration.chunkSize)
        guard let bytes = try? record.encoded() else { return }
        let entry = CacheEntry(data: bytes, metadata: metadata(for: info))
        // A record that fails to store only costs a probe next time.
        try? await manager.store(entry, forKey: key.chunkRecord, storageType: configuration.storageType)
    }

    /// The metadata every chunk and record of `info` carries; its ETag ties chunks to their content.
    func metadata(for info: VideoContentInfo) -> CacheMetadata {
        CacheMetadata(
            created: manager.configuration.now(), etag: info.etag, lastModified: info.lastModified,
            contentType: info.contentType
        )
    }

    /// Asks for chunk 0 to learn the resource; returns at the response head, its body going on in a fetch
    /// registered for the chunks it carries (stored as they complete).
    private func probe(_ asset: AssetRequest, key: CacheKey) async throws -> VideoContentInfo {
        let head = 0..<configuration.chunkSize
        let url = asset.url
        let response = try await send(rangeRequest(asset, bytes: head, info: nil))
        do {
            return try await learn(from: response, key: key, url: url, head: head)
        } catch {
            response.body.cancel()  // an answer that does not fit is not read
            throw error
        }
    }

    /// What the first answer tells of the resource; its body goes on to readers and the store.
    private func learn(
        from response: StreamedResponse, key: CacheKey, url: URL, head: Range<Int>
    ) async throws -> VideoContentInfo {
        switch response.head.statusCode {
        case 206:
            let header = response.head.header("content-range")
            guard let contentRange = ContentRange(header), let total = contentRange.total,
                contentRange.range == 0..<min(configuration.chunkSize, total)
            else {
                throw VideoError.contentRangeMismatch(url: url, expected: head, actual: header)
            }
            let info = Self.info(of: response.head, length: total)
            return await adoptProbed(info, key: key, body: response.body, span: 0..<min(head.count, total), url: url)
        case 200:
            guard let length = response.head.contentLength else {
                // A body of unknown length (chunked) must arrive whole to tell the length.
                let body = try await collect(response.body)
                let info = Self.info(of: response.head, length: body.count)
                let resource = await adopt(info, key: key)
                if resource.isCacheable { await storeWhole(body, key: key, info: info) }
                return info
            }
            let info = Self.info(of: response.head, length: length)
            return await adoptProbed(info, key: key, body: response.body, span: 0..<length, url: url)
        case 416:
            // Only an empty resource has no byte 0.
            guard let contentRange = ContentRange(response.head.header("content-range")), contentRange.total == 0 else {
                throw AssetsError.httpStatus(code: 416, url: url)
            }
            let info = Self.info(of: response.head, length: 0)
            await adopt(info, key: key)
            return info
        default:
            throw AssetsError.httpStatus(code: response.head.statusCode, url: url)
        }
    }

    /// Adopts what a probe learnt and lets its body go on (when cacheable) in a detached fetch of `span`.
    ///
    /// The fetch is registered in the same step that makes the resource known: a reader that finds the
    /// resource known while the record is still being stored finds chunk 0 under way and joins it.
    private func adoptProbed(
        _ info: VideoContentInfo, key: CacheKey, body: ResponseBody, span: Range<Int>, url: URL
    ) async -> VideoContentInfo {
        let resource = ResourceState(info: info, isCacheable: isCacheable(info.length))
        guard resource.isCacheable, !span.isEmpty else {
            body.cancel()  // playing through uncached: the bytes are fetched where a read needs them
            await adopt(info, key: key)
            return info
        }
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: info.length)
        let keep = 0..<min(configuration.chunkSize, info.length)
        let fetch = makeFetch(key: key, info: info, layout: layout, bytes: span, stores: true, isDetached: true)
        fetch.begin(span: span, keep: keep)
        state.withLock { state in
            state._remember(key, resource)
            state._register(fetch, chunks: layout.chunks(covering: span))
        }
        launch(fetch) { [self] in try await feed(fetch, from: body, url: url, requested: keep) }
        await storeRecord(of: info, key: key)
        return info
    }

    private func collect(_ body: ResponseBody) async throws -> Data {
        let data = try await body.collect()
        state.withLock { $0.statistics.bytesFetched += data.count }
        return data
    }

    /// Stores every chunk of a whole body that arrived at once.
    private func storeWhole(_ body: Data, key: CacheKey, info: VideoContentInfo) async {
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: info.length)
        for index in 0..<layout.chunkCount {
            let range = layout.byteRange(ofChunk: index)
            await storeChunk(Data(body[range]), index: index, key: key, info: info)
        }
    }
}

/// What a video resource is: its length, type and validators, as the origin first described them.
public struct VideoContentInfo: Sendable, Hashable, Codable {
    /// The total length in bytes.
    public var length: Int
    /// The `Content-Type` the origin sent, if any.
    public var contentType: String?
    /// The `ETag` the origin sent, if any.
    public var etag: String?
    /// The `Last-Modified` the origin sent (as written), if any.
    public var lastModified: String?

    /// Creates content info.
    package init(length: Int, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.length = length
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The `If-Range` value: a strong ETag, else Last-Modified (a weak ETag cannot be used there).
    var rangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// Whether `other` (from a full 200 response) is different content than `self`.
    ///
    /// Without any validator only the length can tell, so an equal length counts as the same content.
    func isDifferent(from other: VideoContentInfo) -> Bool {
        if other.length != length { return true }
        if let etag { return other.etag != etag }
        if let lastModified { return other.lastModified != lastModified }
        return false
    }
}
